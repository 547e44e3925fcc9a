import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { ComplianceRepository } from '#lib/governance/compliance/compliance-repository';
import { recordComplianceDays } from '#lib/governance/compliance/compliance-service';
import { purgeExpired } from '#lib/retention/retention-purge';
import type { Settings } from '#lib/settings/index';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { testDatabase, testSettings } from '../support/database';

// The retention purge (lib/retention): what the retention settings let go of goes, and nothing else;
// the compliance trend reads the same before and after.

const SCHEMA = 'it_retention';
const ENTITY = randomUUID();

let database: Database;
let settings: Settings;

const ago = (days: number) => `now() - interval '${days} days'`;
const sqlOf = (text: string) => database.sql.unsafe(text);
const column = async (text: string) => (await sqlOf(text)).map((row) => Object.values(row)[0]);

async function report(id: string, cause: string, status: string, endedDaysAgo: number | null) {
  await sqlOf(`insert into ${SCHEMA}.evaluation_reports (id, status, scope, cause, resource_type, request, created_by, created_at, completed_at)
    values ('${id}', '${status}', 'policy', '${cause}', 'dataproduct', '{"entities": []}', 'alice', ${ago((endedDaysAgo ?? 100) + 1)},
      ${endedDaysAgo === null ? 'null' : ago(endedDaysAgo)})`);
}

async function result(resourceId: string, daysAgo: number, options: { reportId?: string; recorded?: boolean; outcome?: string } = {}) {
  await sqlOf(`insert into ${SCHEMA}.evaluation_results (report_id, recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome,
      resource_id, environment, resource_type, result, created_at)
    values (${options.reportId ? `'${options.reportId}'` : 'null'}, ${options.recorded ?? true}, '${ENTITY}', 1, 'policy', 'enabled', 'error',
      '${options.outcome ?? 'ok'}', '${resourceId}', 'development', 'dataproduct', '{"satisfiesPolicy": true, "errors": []}', ${ago(daysAgo)})`);
}

/** Results left, as "resource@days ago". */
const results = () =>
  column(
    `select resource_id || '@' || round(extract(epoch from now() - created_at) / 86400)::text from ${SCHEMA}.evaluation_results where recorded order by id`,
  );
const trend = async () => {
  const to = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const from = new Date(Date.now() - 220 * 86_400_000).toISOString().slice(0, 10);
  return new ComplianceRepository(database).recordedDays({}, from, to);
};
async function recordEveryDay() {
  while ((await recordComplianceDays(database)) > 0);
}

beforeAll(async () => {
  settings = await testSettings(SCHEMA);
  database = await testDatabase(SCHEMA);
  await sqlOf(`drop schema if exists "${SCHEMA}" cascade`);
  await runStartupTasks(settings);
  await sqlOf(`insert into ${SCHEMA}.governance_entities (id, version, kind, latest, name, resource_type, severity, trigger, timing, strategy, status, created_by, updated_by)
    values ('${ENTITY}', 1, 'policy', true, 'Owner is set', 'dataproduct', 'error', 'active', 'deployment', 'default', 'enabled', 'alice', 'alice')`);

  // dp-1's history: the first result ever, then results superseded before the retention and one after.
  const published = randomUUID();
  await report(published, 'publish', 'completed', 150);
  await result('dp-1', 200, { outcome: 'error' });
  await result('dp-1', 150, { reportId: published });
  await result('dp-1', 120, { outcome: 'error' });
  await result('dp-1', 100);
  await result('dp-1', 5, { outcome: 'error' });
  // dp-2's only result, old: the newest of its pair, kept however old.
  await result('dp-2', 150, { reportId: published, outcome: 'error' });
  // A test's report and its own results; a recent report; one still running.
  const tested = randomUUID();
  await report(tested, 'test', 'completed', 100);
  await result('dp-9', 100, { reportId: tested, recorded: false });
  await report(randomUUID(), 'evaluate', 'completed', 10);
  await report(randomUUID(), 'publish', 'running', null);

  for (const [topic, delivered, dead] of [
    ['audit', ago(8), 'null'],
    ['audit', ago(1), 'null'],
    ['notification', 'null', 'null'],
    ['event', 'null', ago(30)],
  ])
    await sqlOf(
      `insert into ${SCHEMA}.outbox (topic, payload, created_at, delivered_at, dead_at) values ('${topic}', '{}', ${ago(30)}, ${delivered}, ${dead})`,
    );

  for (const [id, lastTurn] of [
    [randomUUID(), 40],
    [randomUUID(), 2],
  ] as const) {
    await sqlOf(`insert into ${SCHEMA}.conversations (id, subject, created_at) values ('${id}', 'alice', ${ago(40)})`);
    await sqlOf(`insert into ${SCHEMA}.conversation_turns (conversation_id, turn, query, answer, created_at) values ('${id}', 1, 'q', 'a', ${ago(lastTurn)})`);
  }
  for (const days of [31, 1])
    await sqlOf(`insert into ${SCHEMA}.llm_answers (entity_id, entity_version, descriptor_hash, model, satisfies_policy, errors, suggestions, created_at)
      values ('${ENTITY}', 1, 'hash-${days}', 'gpt', true, '[]', '[]', ${ago(days)})`);
  for (const days of [91, 1])
    await sqlOf(`insert into ${SCHEMA}.cue_disagreements (report_id, entity_id, entity_version, entity_kind, resource_id, environment, native, wasm, created_at)
      values ('${randomUUID()}', '${ENTITY}', 1, 'policy', 'dp-${days}', 'development', '{}', '{}', ${ago(days)})`);
});

afterAll(async () => {
  await database.close();
});

describe('the retention purge', () => {
  it('keeps every result while a day of the trend it could change is not recorded yet', async () => {
    await recordEveryDay();
    // 130 days ago is not recorded: dp-1's result of 150 days ago is its newest then, and stays.
    await sqlOf(`delete from ${SCHEMA}.compliance_snapshot_days where day = (now() - interval '130 days')::date`);
    expect(await purgeExpired(database, settings)).toEqual({
      outbox: 1,
      reports: 3,
      impactReports: 0,
      results: 0,
      conversations: 1,
      llmAnswers: 1,
      disagreements: 1,
    });
    expect(await results()).toEqual(['dp-1@200', 'dp-1@150', 'dp-1@120', 'dp-1@100', 'dp-1@5', 'dp-2@150']);
  });

  it('deletes what each setting lets go of, and the compliance trend reads the same', async () => {
    await recordEveryDay();
    const before = await trend();
    expect(before.filter((day) => (day.resources?.failing ?? 0) > 0).length).toBeGreaterThan(100);

    // Once that day is recorded, dp-1's results superseded before 90 days ago go too.
    expect(await purgeExpired(database, settings)).toEqual({
      outbox: 0,
      reports: 0,
      impactReports: 0,
      results: 2,
      conversations: 0,
      llmAnswers: 0,
      disagreements: 0,
    });

    // The first result, the newest of each pair, and what is newer than retention.reports (90 days) stay.
    expect(await results()).toEqual(['dp-1@200', 'dp-1@100', 'dp-1@5', 'dp-2@150']);
    expect(await trend()).toEqual(before);
    // Reports: the finished ones older than 90 days go, with a test's own results; the running one stays.
    expect(await column(`select cause || ' ' || status from ${SCHEMA}.evaluation_reports order by cause`)).toEqual(['evaluate completed', 'publish running']);
    expect(await column(`select count(*)::int from ${SCHEMA}.evaluation_results where not recorded`)).toEqual([0]);
    // The outbox keeps what is not delivered (pending or dead) and what was delivered within 7 days.
    expect(await column(`select topic from ${SCHEMA}.outbox order by id`)).toEqual(['audit', 'notification', 'event']);
    expect(await column(`select round(extract(epoch from now() - t.created_at) / 86400)::int from ${SCHEMA}.conversation_turns t`)).toEqual([2]);
    expect(await column(`select count(*)::int from ${SCHEMA}.conversations`)).toEqual([1]);
    expect(await column(`select descriptor_hash from ${SCHEMA}.llm_answers`)).toEqual(['hash-1']);
    expect(await column(`select resource_id from ${SCHEMA}.cue_disagreements`)).toEqual(['dp-1']);

    // A second run finds nothing more.
    expect(await purgeExpired(database, settings)).toEqual({
      outbox: 0,
      reports: 0,
      impactReports: 0,
      results: 0,
      conversations: 0,
      llmAnswers: 0,
      disagreements: 0,
    });
  });
});
