/**
 * Bench (g): the compliance endpoints over 1,000,000 results through the HTTP API of serverless
 * offline on an embedded PostgreSQL: 24,000 resources (3 environments x 4 types x 2,000), 10 policies
 * and metrics per type (one in grace, one disabled), each pair evaluated about 4 times over 30 days,
 * a fifth of the pairs failing until they are fixed. Prints the time to seed, to record the 30 past
 * days of the trend, and p50 / p95 of the summary, the trend and the latest results of a type.
 * Run alone with `node --import tsx bench/compliance.ts`, or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import { openDatabase } from '#lib/db/client';
import { recordComplianceDays } from '#lib/governance/compliance/compliance-service';

import { type BenchWorld, startBenchWorld, timeGets } from './bench-world';

const RESULTS = 1_000_000;
const TYPES = ['dataproduct', 'outputport', 'pipeline', 'dashboard'];
const ENVIRONMENTS = ['development', 'qa', 'production'];
const POLICIES_PER_TYPE = 10;
const RESOURCES = 24_000;
const PAIRS = RESOURCES * POLICIES_PER_TYPE;
const DAYS = 30;
const CALLS = 20;

/** The entities, then RESULTS results written oldest first over the last DAYS days, all in SQL. */
async function seed(world: BenchWorld): Promise<void> {
  await world.sql`
    insert into bench.governance_entities (id, version, kind, latest, name, resource_type, severity, engine, cue_script, trigger, timing, strategy, status, created_by, updated_by)
    select md5('entity' || t || '-' || s)::uuid, 1, case when s = 9 then 'metric' else 'policy' end, true, 'Policy ' || t || '-' || s, (${TYPES}::text[])[t + 1],
      (array['error', 'error', 'error', 'warning', 'info', 'error', 'error', 'warning', 'error', 'error'])[s + 1], 'cue', 'x: 1', 'active', 'deployment', 'default',
      case when s = 7 then 'grace' when s = 8 then 'disabled' else 'enabled' end, 'bench', 'bench'
    from generate_series(0, ${TYPES.length - 1}) t, generate_series(0, ${POLICIES_PER_TYPE - 1}) s`;
  // Result i is of pair i % PAIRS, at round i / PAIRS; resource n = pair / 10 is in environment n % 3, of type (n / 3) % 4.
  // A pair whose hash says so fails (error) until the round its hash names, 1% cannot be evaluated (failed).
  await world.sql`
    insert into bench.evaluation_results (recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome, resource_id, environment, resource_type, result, created_at)
    select true, md5('entity' || ((p / 10 / 3) % 4) || '-' || (p % 10))::uuid, 1, case when p % 10 = 9 then 'metric' else 'policy' end, 'enabled', 'error',
      case when h % 100 = 0 then 'failed' when h % 100 < 20 and i / ${PAIRS} < (h / 100) % 6 then 'error' else 'ok' end,
      'urn:bench:' || (p / 10), (${ENVIRONMENTS}::text[])[(p / 10) % 3 + 1], (${TYPES}::text[])[(p / 10 / 3) % 4 + 1],
      '{"satisfiesPolicy": true, "isError": false, "errors": []}', now() - make_interval(days => ${DAYS}) + i * make_interval(days => ${DAYS}) / ${RESULTS}
    from generate_series(0, ${RESULTS - 1}) i, lateral (select i % ${PAIRS} as p, abs(hashint4(i % ${PAIRS})) as h) pair`;
  // What the writes keep up to date (and migration 0015 fills from the history).
  await world.sql`
    insert into bench.latest_results (entity_id, resource_id, environment, resource_type, outcome, result_id)
    select distinct on (entity_id, resource_id, environment) entity_id, resource_id, environment, resource_type, outcome, id
    from bench.evaluation_results where recorded order by entity_id, resource_id, environment, id desc`;
  // What autovacuum does to an append-only table soon after: the visibility map that index-only scans read.
  await world.sql`vacuum analyze bench.evaluation_results, bench.latest_results, bench.governance_entities`;
}

export async function benchCompliance(): Promise<void> {
  const world = await startBenchWorld('');
  const database = openDatabase(world.settings);
  try {
    let started = performance.now();
    await seed(world);
    console.log(
      `(g) ${RESULTS} results of ${PAIRS} pairs (${RESOURCES} resources) over ${DAYS} days, seeded in SQL in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    started = performance.now();
    const recorded = await recordComplianceDays(database);
    const recordMs = performance.now() - started;
    console.log(
      `    complianceSnapshotter: ${recorded} past days recorded from the history in ${(recordMs / 1000).toFixed(1)} s (${(recordMs / recorded).toFixed(0)} ms a day)`,
    );
    const summary = (await (await world.fetch('/compliance/summary')).json()) as { resources: { total: number; failing: number } };
    console.log(`    summary: ${summary.resources.total} resources, ${summary.resources.failing} failing`);
    for (const [label, route] of [
      ['GET /compliance/summary', '/compliance/summary'],
      ['GET /compliance/summary?environment=production', '/compliance/summary?environment=production'],
      ['GET /compliance/trend (30 days)', '/compliance/trend'],
      ['GET /compliance/trend?resourceType=pipeline&days=7', '/compliance/trend?resourceType=pipeline&days=7'],
      ['GET /results?latest=true&resourceType=pipeline&outcome=error (a page of 25)', '/results?latest=true&resourceType=pipeline&outcome=error'],
    ] as const) {
      const { p50, p95 } = await timeGets(world, CALLS, route);
      console.log(`    ${label}: p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms (${CALLS} warm calls)`);
    }
  } finally {
    await database.close();
    await world.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchCompliance();
}
