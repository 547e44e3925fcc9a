import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { testDatabase, testSettings } from '../support/database';

const SCHEMA = 'it_migrations';
const JOURNAL = JSON.parse(readFileSync('drizzle/migrations/meta/_journal.json', 'utf8')) as { entries: { when: number }[] };
const MIGRATIONS = JOURNAL.entries.length;
const TABLES = [
  '__drizzle_migrations',
  'approvals',
  'audit_checkpoints',
  'audit_records',
  'compliance_days',
  'compliance_snapshot_days',
  'conversation_turns',
  'conversations',
  'cron_schedules',
  'cue_disagreements',
  'environments',
  'evaluation_reports',
  'evaluation_results',
  'evaluation_tasks',
  'evidence_pack_parts',
  'evidence_packs',
  'governance_entities',
  'governance_entity_statuses',
  'governance_exceptions',
  'governance_exceptions_removed',
  'governance_generation',
  'impact_reports',
  'impact_resources',
  'knowledge_chunks',
  'knowledge_index_refreshes',
  'knowledge_stale_sources',
  'latest_results',
  'llm_answers',
  'model_configurations',
  'outbox',
  'resource_types',
  'role_bindings',
  'rollouts',
  'startup_runs',
];
let database: Database;

const tablesIn = async (schema: string) =>
  (await database.sql<{ table_name: string }[]>`select table_name from information_schema.tables where table_schema = ${schema} order by table_name`).map(
    (row) => row.table_name,
  );

beforeAll(async () => {
  database = await testDatabase(SCHEMA);
  await database.sql.unsafe(`drop schema if exists ${SCHEMA} cascade`);
});

afterAll(async () => {
  await database.close();
});

describe('migrations at start', () => {
  it('create the tables in the schema named by database.schema', async () => {
    const report = await runStartupTasks(await testSettings(SCHEMA));
    expect(MIGRATIONS).toBeGreaterThanOrEqual(2);
    expect(report.tasks.migrations).toBe(`${MIGRATIONS} applied`);
    expect(await tablesIn(SCHEMA)).toEqual(TABLES);
    expect(await tablesIn('cgp')).not.toContain('startup_runs');
  });

  it('apply nothing the second time, and record each run', async () => {
    const report = await runStartupTasks(await testSettings(SCHEMA));
    expect(report.tasks.migrations).toBe('0 applied');
    const runs = await database.db.select().from(database.tables.startupRuns);
    expect(runs).toHaveLength(2);
    expect(runs.map((run) => run.tasks.migrations).sort()).toEqual(['0 applied', `${MIGRATIONS} applied`]);
  });

  it('leave the schema alone when migrate-on-start is false', async () => {
    const other = `${SCHEMA}_off`;
    await database.sql.unsafe(`drop schema if exists ${other} cascade`);
    const report = await runStartupTasks(await testSettings(other, 'computational-governance-platform.database.migrate-on-start = false'));
    expect(report.tasks.migrations).toMatch(/^skipped/);
    expect(await tablesIn(other)).toEqual([]);
  });

  it('are safe when two start-ups run at once', async () => {
    const other = `${SCHEMA}_race`;
    await database.sql.unsafe(`drop schema if exists ${other} cascade`);
    const settings = await testSettings(other);
    const reports = await Promise.all([runStartupTasks(settings), runStartupTasks(settings)]);
    expect(reports.map((report) => report.tasks.migrations).sort()).toEqual(['0 applied', `${MIGRATIONS} applied`]);
    const [{ count }] = await database.sql.unsafe<{ count: number }[]>(`select count(*)::int as count from ${other}.__drizzle_migrations`);
    expect(count).toBe(MIGRATIONS);
  });
});

describe('repair-on-start', () => {
  it('drops the schema with its data and recreates it from the migrations', async () => {
    await database.sql.unsafe(`insert into ${SCHEMA}.startup_runs (fingerprint) values ('marker')`);
    await database.sql.unsafe(`create table ${SCHEMA}.stray (id int)`);
    const report = await runStartupTasks(await testSettings(SCHEMA, 'computational-governance-platform.database.repair-on-start = true'));
    expect(report.tasks).toMatchObject({ repair: 'schema dropped', migrations: `${MIGRATIONS} applied` });
    expect(await tablesIn(SCHEMA)).toEqual(TABLES);
    const markers = await database.sql.unsafe(`select 1 from ${SCHEMA}.startup_runs where fingerprint = 'marker'`);
    expect(markers).toHaveLength(0);
  });

  it('is off by default', async () => {
    expect((await testSettings(SCHEMA)).database.repairOnStart).toBe(false);
  });
});

/** The statements that take a schema back to before migration 0030 (evidence packs; 0031, their zips in parts, too). */
const undo0030 = (schema: string) => `
  drop function ${schema}.record_entity_status() cascade;
  drop function ${schema}.keep_removed_exception() cascade;
  drop table ${schema}.evidence_packs, ${schema}.evidence_pack_parts, ${schema}.governance_entity_statuses, ${schema}.governance_exceptions_removed;`;

describe('migration 0030 (evidence packs)', () => {
  it("records each version's status there was, since its last move; from then on the database records every move and deleted exception", async () => {
    const other = `${SCHEMA}_statuses`;
    await database.sql.unsafe(`drop schema if exists ${other} cascade`);
    const settings = await testSettings(other);
    await runStartupTasks(settings);
    await database.sql.unsafe(`
      ${undo0030(other)}
      delete from ${other}.__drizzle_migrations where created_at >= ${JOURNAL.entries[30].when};
      insert into ${other}.governance_entities (id, version, kind, latest, name, resource_type, severity, trigger, timing, strategy, status, created_by, updated_by, updated_at)
      values ('00000000-0000-4000-8000-000000000001', 1, 'policy', false, 'owner', 'dataproduct', 'error', 'active', 'deployment', 'default', 'disabled', 'ana', 'bo', '2026-01-02T03:04:05Z'),
             ('00000000-0000-4000-8000-000000000001', 2, 'policy', true, 'owner', 'dataproduct', 'error', 'active', 'deployment', 'default', 'enabled', 'ana', 'bo', '2026-01-02T03:04:05Z'),
             ('00000000-0000-4000-8000-000000000002', 1, 'policy', true, 'draft one', 'dataproduct', 'error', 'active', 'deployment', 'default', 'draft', 'ana', 'ana', '2026-01-03T00:00:00Z')`);
    expect((await runStartupTasks(settings)).tasks.migrations).toBe(`${MIGRATIONS - 30} applied`);
    const statuses = () =>
      database.sql.unsafe(`select entity_id, version, status, since, changed_by, entity->>'name' as name from ${other}.governance_entity_statuses order by id`);
    // Drafts were never in force: not recorded.
    expect((await statuses()).map((row) => [row.version, row.status, new Date(row.since).toISOString(), row.changed_by, row.name])).toEqual([
      [1, 'disabled', '2026-01-02T03:04:05.000Z', 'bo', 'owner'],
      [2, 'enabled', '2026-01-02T03:04:05.000Z', 'bo', 'owner'],
    ]);
    await database.sql.unsafe(`update ${other}.governance_entities set status = 'grace', updated_by = 'cy' where id = '00000000-0000-4000-8000-000000000002'`);
    expect((await statuses()).slice(2).map((row) => [row.version, row.status, row.changed_by])).toEqual([[1, 'grace', 'cy']]);
    await database.sql.unsafe(`
      insert into ${other}.governance_exceptions (id, entity_id, entity_kind, resource_id, resource_like, reason, expires_at, created_by)
      values ('00000000-0000-4000-8000-0000000000e1', '00000000-0000-4000-8000-000000000001', 'policy', 'r1', 'r1', 'why', now() + interval '1 day', 'ana');
      delete from ${other}.governance_exceptions`);
    const removed = await database.sql.unsafe(`select id, exception->>'reason' as reason from ${other}.governance_exceptions_removed`);
    expect(removed.map((row) => [row.id, row.reason])).toEqual([['00000000-0000-4000-8000-0000000000e1', 'why']]);
    await database.sql.unsafe(`drop schema ${other} cascade`);
  });
});

describe('migration 0015 (compliance aggregation)', () => {
  it('fills latest_results with the newest recorded result of each pair of the history', async () => {
    const other = `${SCHEMA}_latest`;
    await database.sql.unsafe(`drop schema if exists ${other} cascade`);
    const settings = await testSettings(other);
    await runStartupTasks(settings);
    // Back to the schema before 0015 (undoing 0016 to 0031 too), with a history in it.
    await database.sql.unsafe(`
      ${undo0030(other)}
      drop function ${other}.next_governance_generation() cascade;
      drop table ${other}.governance_generation;
      drop table ${other}.rollouts, ${other}.audit_checkpoints;
      drop table ${other}.impact_resources, ${other}.impact_reports;
      alter table ${other}.evaluation_results drop column resource_owner;
      alter table ${other}.resource_types drop column resource_owner_field;
      drop index ${other}.outbox_due, ${other}.outbox_delivered;
      alter table ${other}.outbox drop column idempotency_key, drop column dead_at;
      create index outbox_pending on ${other}.outbox (next_attempt_at) where delivered_at is null;
      drop table ${other}.latest_results, ${other}.compliance_days, ${other}.compliance_snapshot_days, ${other}.governance_exceptions;
      drop table ${other}.approvals, ${other}.audit_records, ${other}.role_bindings;
      alter table ${other}.llm_answers drop column answered_by;
      drop index ${other}.governance_entities_list;
      alter table ${other}.knowledge_chunks drop column revision;
      delete from ${other}.__drizzle_migrations where created_at >= ${JOURNAL.entries[15].when};
      insert into ${other}.evaluation_results (recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome, resource_id, environment, resource_type, result)
      select recorded, entity_id::uuid, 1, 'policy', 'enabled', 'error', outcome, resource_id, 'production', 'dataproduct', '{}'
      from (values (true, '00000000-0000-4000-8000-000000000001', 'error', 'r1'), (true, '00000000-0000-4000-8000-000000000001', 'ok', 'r1'),
                   (false, '00000000-0000-4000-8000-000000000001', 'failed', 'r1'), (true, '00000000-0000-4000-8000-000000000002', 'warning', 'r1'),
                   (false, '00000000-0000-4000-8000-000000000002', 'error', 'r2')) as history(recorded, entity_id, outcome, resource_id)`);
    const report = await runStartupTasks(settings);
    expect(report.tasks.migrations).toBe(`${MIGRATIONS - 15} applied`);
    const latest = await database.sql.unsafe(`select entity_id, resource_id, outcome from ${other}.latest_results order by entity_id`);
    // The newest recorded result of each pair; a policy test's results (recorded false) are not history.
    expect(latest.map((row) => [row.entity_id, row.resource_id, row.outcome])).toEqual([
      ['00000000-0000-4000-8000-000000000001', 'r1', 'ok'],
      ['00000000-0000-4000-8000-000000000002', 'r1', 'warning'],
    ]);
    await database.sql.unsafe(`drop schema ${other} cascade`);
  });
});
