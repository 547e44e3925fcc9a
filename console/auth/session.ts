/**
 * The credentials of this tab: kept in sessionStorage only (gone when the tab closes, never shared
 * with other tabs or written to local storage), sent by the API client on every call.
 */
export type Credentials = { kind: 'bearer'; token: string } | { kind: 'basic'; user: string; accessToken: string };

const KEY = 'cgp.console.credentials';

export function readCredentials(): Credentials | undefined {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Credentials | null;
    return stored?.kind === 'bearer' || stored?.kind === 'basic' ? stored : undefined;
  } catch {
    return undefined;
  }
}

export const keepCredentials = (credentials: Credentials) => sessionStorage.setItem(KEY, JSON.stringify(credentials));

export const forgetCredentials = () => sessionStorage.removeItem(KEY);

/** The Authorization header of these credentials (Basic: user:accessToken, UTF-8, base64). */
export function authorizationOf(credentials: Credentials): string {
  if (credentials.kind === 'bearer') return `Bearer ${credentials.token}`;
  const bytes = new TextEncoder().encode(`${credentials.user}:${credentials.accessToken}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/**
 * The link `npm start` prints opens /console#token=<jwt>: a fragment never reaches a server (nor
 * its logs). The token is kept for the tab and removed from the address bar and the history.
 */
export function takeTokenFromAddress(): void {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (!match) return;
  keepCredentials({ kind: 'bearer', token: decodeURIComponent(match[1]) });
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
}
