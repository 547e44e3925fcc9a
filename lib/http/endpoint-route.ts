/**
 * The URL path of a call: an endpoint contract's path (`/v1/.../{id}`) with its parameters filled in
 * (URL-encoded), and the query without its undefined values. Pure, with no imports: both clients use it, the
 * console in the browser too.
 */
export function endpointRoute(path: string, params: unknown, query: unknown): string {
  const values = (params ?? {}) as Record<string, unknown>;
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) if (value !== undefined) search.set(name, String(value));
  return search.size > 0 ? `${filled}?${search}` : filled;
}
