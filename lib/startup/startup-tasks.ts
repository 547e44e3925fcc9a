import { createHash } from 'node:crypto';

import type { SourceRef } from '#lib/assistant/knowledge/knowledge-sources';
import { prepareVectorStore } from '#lib/assistant/knowledge/vector-store';
import { type Database, openDatabase } from '#lib/db/client';
import { poolOptions } from '#lib/db/connection';
import { applyMigrations, dropSchema, withSchemaLock } from '#lib/db/migrations';
import { tableExists } from '#lib/db/table-exists';
import { inTransaction } from '#lib/db/transaction';
import { checkCueExecutable } from '#lib/governance/engines/cue/cue-process';
import { refreshEnvironments } from '#lib/governance/environments/environment-refresh';
import { EnvironmentRepository } from '#lib/governance/environments/environment-repository';
import { fromSettings } from '#lib/governance/resource-types/resource-type';
import { ResourceTypeRepository } from '#lib/governance/resource-types/resource-type-repository';
import { CronScheduleRepository } from '#lib/governance/scheduling/cron-schedule-repository';
import { encryptionKeys } from '#lib/llm/encryption-key';
import { ModelConfigRepository } from '#lib/llm/model-config-repository';
import { logger } from '#lib/logging/logger';
import { markSourcesStale } from '#lib/outbox/knowledge-changes';
import type { Settings } from '#lib/settings/index';

export interface StartupReport {
  readonly tasks: Record<string, string>;
  readonly durationMs: number;
}

/** A digest of the settings, so runs with changed settings can be told apart in startup_runs. */
function fingerprint(settings: Settings): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
}

async function recordRun(database: Database, startedAt: number, report: StartupReport, settings: Settings): Promise<void> {
  if (!(await tableExists(database, 'startup_runs'))) return;
  await database.db.insert(database.tables.startupRuns).values({
    startedAt: new Date(startedAt),
    finishedAt: new Date(),
    fingerprint: fingerprint(settings),
    tasks: report.tasks,
    durationMs: report.durationMs,
  });
}

/**
 * The seed: every `resource-types` entry of the settings is registered at start, overwriting by
 * name; those registered or replaced go to `changed`.
 */
async function registerSettingsResourceTypes(database: Database, settings: Settings, changed: SourceRef[]): Promise<string> {
  const repository = new ResourceTypeRepository(database);
  const outcomes = { created: 0, replaced: 0, unchanged: 0 };
  for (const entry of settings.resourceTypes) {
    const { row, outcome } = await repository.upsert(fromSettings(entry), 'settings', 'settings');
    outcomes[outcome]++;
    if (outcome !== 'unchanged') changed.push({ type: 'resource_type', id: row.name });
  }
  return `${outcomes.created} registered, ${outcomes.replaced} replaced, ${outcomes.unchanged} unchanged`;
}

/** The environments, from the settings or the platform; those stored before or after go to `changed`. */
async function storeEnvironments(database: Database, settings: Settings, changed: SourceRef[]): Promise<string> {
  const repository = new EnvironmentRepository(database);
  const before = await repository.names();
  const report = await refreshEnvironments(database, settings);
  for (const name of new Set([...before, ...(await repository.names())])) changed.push({ type: 'environment', id: name });
  return report;
}

/**
 * cron-policies.reload-on-start: true schedules every enabled executable cron policy by its
 * expression (and drops schedules no enabled version backs); false keeps the schedules of before
 * the start as they are and adds none.
 */
async function scheduleCronPolicies(database: Database, settings: Settings): Promise<string> {
  const { reloadOnStart, timeZone } = settings.cronPolicies;
  if (!reloadOnStart) return `${await new CronScheduleRepository(database).count()} kept as scheduled before (reload-on-start is false)`;
  const { scheduled, unscheduled } = await inTransaction(database, 'cron reload', (tx) => new CronScheduleRepository(database).reload(timeZone, tx));
  return `${scheduled} scheduled, ${unscheduled} unscheduled`;
}

/**
 * The start-up tasks, run once per deployment or `npm start` (not once per Lambda container):
 * the check of the `cue` executable (only when cue-config.cue-process-path is set), repair (only when asked), migrations
 * (and, with them, pgvector and its column when the server has it),
 * the resource types of the settings, the environments (both, and the CUE guide, marked stale in the knowledge index),
 * the cron schedules, re-encryption of stored provider keys written under a rotated-out key. A PostgreSQL advisory lock makes two concurrent runs take turns; a run with nothing to do
 * costs a few queries.
 */
export async function runStartupTasks(settings: Settings): Promise<StartupReport> {
  const startedAt = Date.now();
  // One connection holds the lock, the others do the work.
  // Migrations may run long (an index on a large table), and a second run waits its turn on the schema lock: no bound for either.
  const database = openDatabase(settings, { max: 3, connection: { ...poolOptions(settings).connection, statement_timeout: 0, lock_timeout: 0 } });
  try {
    return await withSchemaLock(database, async () => {
      const tasks: Record<string, string> = {};
      // Fails start, before the database is touched, when the configured executable is not a working cue.
      if (settings.cueConfig.cueProcessPath) tasks.cueExecutable = await checkCueExecutable(settings);
      const { repairOnStart, migrateOnStart } = settings.database;
      if (repairOnStart) {
        await dropSchema(database);
        tasks.repair = 'schema dropped';
      }
      if (migrateOnStart || repairOnStart) {
        tasks.migrations = `${await applyMigrations(database)} applied`;
        tasks.vectorStore = await prepareVectorStore(database);
      } else {
        tasks.migrations = 'skipped (database.migrate-on-start is false)';
      }
      // Fails start when deployed without assistant.encryption-key; moves keys off rotated-out keys.
      const keys = await encryptionKeys(settings);
      if (await tableExists(database, 'model_configurations')) {
        const { reencrypted, unreadable } = await new ModelConfigRepository(database, keys).reencryptKeys();
        tasks.assistantKeys = `${reencrypted} re-encrypted`;
        if (unreadable.length > 0) {
          tasks.assistantKeys += `, ${unreadable.join(' and ')} unreadable`;
          logger.error(
            { unreadable },
            `the stored API key of the ${unreadable.join(' and ')} configuration cannot be decrypted ` +
              'with assistant.encryption-key or previous-encryption-keys: save that configuration again',
          );
        }
      }
      // What the knowledge index holds and start-up may change, the CUE guide too (bundled: a deployment may bring another).
      const changed: SourceRef[] = [{ type: 'guide', id: 'cue-policies' }];
      if (await tableExists(database, 'resource_types')) tasks.resourceTypes = await registerSettingsResourceTypes(database, settings, changed);
      if (await tableExists(database, 'environments')) tasks.environments = await storeEnvironments(database, settings, changed);
      // The scheduled refresher reads those sources again (and only those).
      if (await tableExists(database, 'knowledge_stale_sources')) {
        await markSourcesStale(database, changed);
        tasks.knowledgeIndex = `${changed.length} sources marked stale`;
      }
      if (await tableExists(database, 'cron_schedules')) tasks.cronPolicies = await scheduleCronPolicies(database, settings);
      const report = { tasks, durationMs: Date.now() - startedAt };
      await recordRun(database, startedAt, report, settings);
      logger.info({ schema: database.schemaName, ...report }, 'start-up tasks done');
      return report;
    });
  } finally {
    await database.close();
  }
}
