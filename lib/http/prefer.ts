/** The longest `Prefer: wait=N` honoured: API Gateway gives up on an integration after 30 s. */
const MAX_WAIT_SECONDS = 25;

/**
 * `Prefer: wait=N` (RFC 7240) in milliseconds, capped at MAX_WAIT_SECONDS; undefined when the
 * request does not ask to wait.
 */
export function preferredWaitMs(headers: Readonly<Record<string, string | undefined>>): number | undefined {
  const match = /(?:^|[,;\s])wait\s*=\s*"?(\d+)"?/i.exec(headers.prefer ?? '');
  if (!match) return undefined;
  return Math.min(Number(match[1]), MAX_WAIT_SECONDS) * 1000;
}
