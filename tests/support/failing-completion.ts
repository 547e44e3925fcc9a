import type { Database } from '#lib/db/client';

/**
 * Makes completing the audit records of the call `requestId` fail, as a database gone away after
 * the call's change would: a trigger refuses to give its held outbox messages their outcome.
 * Answers the undo.
 */
export async function failingCompletion(database: Database, schema: string, requestId: string): Promise<() => Promise<void>> {
  await database.sql.unsafe(
    `create or replace function "${schema}".refuse_completion() returns trigger language plpgsql as $$
     begin raise exception 'the database went away'; end $$`,
  );
  await database.sql.unsafe(
    `create trigger refuse_completion before update on "${schema}".outbox for each row
     when (old.payload->>'requestId' = '${requestId.replaceAll("'", "''")}' and old.delivered_at is null and new.payload is distinct from old.payload)
     execute function "${schema}".refuse_completion()`,
  );
  return async () => {
    await database.sql.unsafe(`drop trigger refuse_completion on "${schema}".outbox`);
    await database.sql.unsafe(`drop function "${schema}".refuse_completion()`);
  };
}
