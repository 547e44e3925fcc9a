import { z } from 'zod';

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  nano: 1e-6,
  nanos: 1e-6,
  nanosecond: 1e-6,
  nanoseconds: 1e-6,
  us: 1e-3,
  micro: 1e-3,
  micros: 1e-3,
  microsecond: 1e-3,
  microseconds: 1e-3,
  ms: 1,
  milli: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i;

/**
 * Parses a HOCON duration ("10 seconds", "10s", "2 minutes", "500ms") into milliseconds.
 * A bare number is milliseconds, as in HOCON. Returns undefined when the text is not a duration.
 */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = DURATION.exec(value);
  if (!match) return undefined;
  const unit = match[2].toLowerCase() || 'ms';
  const factor = UNIT_MS[unit];
  if (factor === undefined) return undefined;
  return Math.round(Number(match[1]) * factor);
}

/** A zod type reading a HOCON duration and giving milliseconds. */
export const duration = () =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration such as "10 seconds", "10s" or "2 minutes", got ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    }
    return ms;
  });
