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
 * its logs). The token is removed from the address bar and the history at once; the caller decides
 * whether it signs the tab in (see tokenLinkAsks).
 */
export function takeTokenFromAddress(): string | undefined {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (!match) return undefined;
  // Replaced, not added: the address with the token is in neither the address bar nor the history.
  location.replace('#/');
  return decodeURIComponent(match[1]);
}

/**
 * Whether a token link must ask before it replaces the credentials of a signed-in tab: always,
 * except on the local server (`npm start`), whose page says `sign-in` in its meta (the console
 * function writes it, lib/console/console-files.ts). A crafted link must not silently sign a
 * victim's tab in as someone else.
 */
export const tokenLinkAsks = () => document.querySelector('meta[name="cgp-token-link"]')?.getAttribute('content') !== 'sign-in';

/** Whom credentials name, as far as the tab can tell: a JWT's subject (read, not verified: only to show), a Basic user. */
export function subjectOf(credentials: Credentials): string | undefined {
  if (credentials.kind === 'basic') return credentials.user;
  try {
    const payload = credentials.token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const subject = (JSON.parse(atob(payload)) as { sub?: unknown }).sub;
    return typeof subject === 'string' ? subject : undefined;
  } catch {
    return undefined;
  }
}
