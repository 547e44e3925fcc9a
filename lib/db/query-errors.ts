import { DrizzleQueryError } from 'drizzle-orm/errors';

/**
 * Why an operation failed, for a record kept with it (a task's last error): a failed query says
 * what the database answered, without the query and its parameters (long, and holding what was
 * written); any other error its message.
 */
export function failureReason(error: unknown): string {
  if (error instanceof DrizzleQueryError && error.cause instanceof Error) return `the database refused a query: ${error.cause.message}`;
  return error instanceof Error ? error.message : String(error);
}
