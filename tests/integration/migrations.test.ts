import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '../../lib/db/client';
import { runStartupTasks } from '../../lib/startup/startup-tasks';
import { testDatabase, testSettings } from '../support/database';

const SCHEMA = 'it_migrations';
const MIGRATIONS = JSON.parse(readFileSync('drizzle/migrations/meta/_journal.json', 'utf8')).entries.length as number;
const TABLES = [
  '__drizzle_migrations',
  'conversation_turns',
  'conversations',
  'cron_schedules',
  'cue_disagreements',
  'environments',
  'evaluation_reports',
  'evaluation_results',
  'evaluation_tasks',
  'governance_entities',
  'knowledge_chunks',
  'knowledge_index_refreshes',
  'knowledge_stale_sources',
  'llm_answers',
  'model_configurations',
  'outbox',
  'resource_types',
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
