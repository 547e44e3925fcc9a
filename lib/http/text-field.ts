import { z } from 'zod';

/** A required text field of a request: trimmed, not empty, at most `max` characters; messages name it. */
export const textField = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(max, `${name} is longer than ${max} characters`);
