/**
 * Exponential backoff with jitter: attempt 1 waits about `baseMs`, each next one about twice as
 * long, capped at `maxMs`. The jitter (75-100 %) spreads retrying clients apart while keeping each
 * wait longer than the one before.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.75 + 0.25 * random()));
}
