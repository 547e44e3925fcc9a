import { createHash } from 'node:crypto';
import { openDatabase, type Database } from '../db/client';
import { applyMigrations, dropSchema, withSchemaLock } from '../db/migrations';
import { logger } from '../logging/logger';
import type { Settings } from '../settings';

export interface StartupReport {
  readonly tasks: Record<string, string>;
  readonly durationMs: number;
}

/** A digest of the settings, so runs with changed settings can be told apart in startup_runs. */
function fingerprint(settings: Settings): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
}

async function recordRun(database: Database, startedAt: number, report: StartupReport, settings: Settings): Promise<void> {
  const { startupRuns } = database.tables;
  const [{ exists }] = await database.sql<{ exists: boolean }[]>`select to_regclass(${`"${database.schemaName}".startup_runs`}) is not null as exists`;
  if (!exists) return;
  await database.db.insert(startupRuns).values({
    startedAt: new Date(startedAt),
    finishedAt: new Date(),
    fingerprint: fingerprint(settings),
    tasks: report.tasks,
    durationMs: report.durationMs,
  });
}

/**
 * The start-up tasks, run once per deployment or `npm start` (not once per Lambda container):
 * repair (only when asked), then migrations. A PostgreSQL advisory lock makes two concurrent
 * runs take turns; a run with nothing to do costs a few queries.
 */
export async function runStartupTasks(settings: Settings): Promise<StartupReport> {
  const startedAt = Date.now();
  // One connection holds the lock, the others do the work.
  const database = openDatabase(settings, { max: 3 });
  try {
    return await withSchemaLock(database, async () => {
      const tasks: Record<string, string> = {};
      const { repairOnStart, migrateOnStart } = settings.database;
      if (repairOnStart) {
        await dropSchema(database);
        tasks.repair = 'schema dropped';
      }
      if (migrateOnStart || repairOnStart) {
        tasks.migrations = `${await applyMigrations(database)} applied`;
      } else {
        tasks.migrations = 'skipped (database.migrate-on-start is false)';
      }
      const report = { tasks, durationMs: Date.now() - startedAt };
      await recordRun(database, startedAt, report, settings);
      logger.info({ schema: database.schemaName, ...report }, 'start-up tasks done');
      return report;
    });
  } finally {
    await database.close();
  }
}
