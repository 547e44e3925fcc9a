import { Cron } from 'croner';

// Quartz-style expressions ("0 0/15 * * * ?") are what policy authors of this ecosystem write.
const OPTIONS = { paused: true, sloppyRanges: true } as const;

/** Why a cron expression does not parse, or undefined when it does (5, 6 or 7 fields, Quartz `?`, `L`, `W`, `#`). */
export function cronProblem(expression: string): string | undefined {
  try {
    const cron = new Cron(expression, OPTIONS);
    return cron.nextRun() ? undefined : 'the expression never fires';
  } catch (error) {
    return (error as Error).message.replace(/^CronPattern: /, '');
  }
}

/** The first time after `from` the expression fires, read in `timeZone` (cron-policies.time-zone); undefined when it never does. */
export function nextCronRun(expression: string, from: Date, timeZone = 'UTC'): Date | undefined {
  return new Cron(expression, { ...OPTIONS, timezone: timeZone }).nextRun(from) ?? undefined;
}
