import type { ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';

import type { Permission } from '#lib/authorization/roles';

/**
 * Hash routing (#/policies?status=draft): the server serves one page whatever the route, the
 * address works under any base path the API is mounted at, and filters and pages are in the
 * address (links, back and forward).
 */
export interface RouteProps {
  /** The `:name` parts of the route's path. */
  readonly params: Readonly<Record<string, string>>;
  /** The query of the address (#/policies?status=draft&offset=25). */
  readonly query: URLSearchParams;
}

export interface Route {
  /** '/policies', '/policies/:id' */
  readonly path: string;
  readonly title: string;
  /** Shown in the navigation under this label, in the order of the table. */
  readonly nav?: string;
  /** In the navigation only for callers who hold it (GET /me); the page itself says what is missing. */
  readonly permission?: Permission;
  readonly page: (props: RouteProps) => ComponentChild;
}

export interface Location {
  readonly path: string;
  readonly query: URLSearchParams;
}

function currentLocation(): Location {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?', 2);
  return { path: path || '/', query: new URLSearchParams(query) };
}

/** The address's route, followed as it changes. */
export function useLocation(): Location {
  const [current, setCurrent] = useState(currentLocation);
  useEffect(() => {
    const follow = () => setCurrent(currentLocation());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return current;
}

/** The link to a route, with a query (empty values left out). */
export function href(path: string, query: Record<string, string | number | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, String(value));
  return `#${path}${search.size > 0 ? `?${search}` : ''}`;
}

/** Goes to a route; `replace`: instead of the address in the history (a redirect, which Back must not return to). */
export function navigate(path: string, query?: Record<string, string | number | undefined>, { replace = false } = {}): void {
  if (replace) location.replace(href(path, query));
  else location.hash = href(path, query);
}

/** The first route of the table whose path matches, with its parameters. */
export function matchRoute(routes: readonly Route[], path: string): { route: Route; params: Record<string, string> } | undefined {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (pattern.every((part, index) => (part.startsWith(':') ? (params[part.slice(1)] = decodeURIComponent(parts[index])) : part === parts[index])))
      return { route, params };
  }
  return undefined;
}
