import { z } from 'zod';

/** The largest value of a PostgreSQL `integer` column (versions, counts). */
export const PG_INTEGER_MAX = 2_147_483_647;

/** A query parameter holding a whole number within [min, max]: a 400 naming it otherwise. */
export const wholeNumberQuery = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

/** A query parameter holding `true` or `false`: a 400 naming it otherwise. */
export const booleanQuery = (name: string) =>
  z
    .enum(['true', 'false'], { error: `${name} must be true or false` })
    .transform((value) => value === 'true')
    .optional();
