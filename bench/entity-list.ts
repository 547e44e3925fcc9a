/**
 * Bench (h): the list of policies over 10,000 policies (mixed-case names) through the HTTP API of
 * serverless offline on an embedded PostgreSQL: the first page in the default order (by name), the
 * first page by name descending, a deep page (offset 9,000) and the `text` filter. Prints p50 / p95
 * of each, and the plan PostgreSQL chose for the page's query (the repository's own SQL, run under
 * EXPLAIN ANALYZE): an index scan when the list index serves the order, a sort of every row when not.
 * Run alone with `node --import tsx bench/entity-list.ts`, or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import { drizzle } from 'drizzle-orm/postgres-js';

import { type Database, openDatabase } from '#lib/db/client';
import type { EntityFilters } from '#lib/governance/policies/entity';
import { EntityRepository } from '#lib/governance/policies/entity-repository';

import { type BenchWorld, startBenchWorld, timeGets } from './bench-world';

const POLICIES = 10_000;
const PAGE = 25;
const CALLS = 30;

/**
 * POLICIES policies, one version each, in SQL. Names as people write them: capitalised or not,
 * words or paths, so that the order by name interleaves cases (`Console policy 42`, `actual_policies/42`, `cli owner 42`).
 */
async function seed(world: BenchWorld): Promise<void> {
  const phrases = ['Console policy', 'actual_policies/', 'cli owner', 'Owner is set', 'output port is versioned', 'PII columns are tagged', 'beta', 'Beta'];
  await world.sql`
    insert into bench.governance_entities (id, version, kind, latest, name, description, resource_type, severity, engine, cue_script, trigger, timing, strategy, status, created_by, updated_by)
    select md5('entity-list' || i)::uuid, 1, 'policy', true,
      (${phrases}::text[])[abs(hashint4(i)) % ${phrases.length} + 1] || ' ' || i, 'Bench policy ' || i, 'dataproduct',
      (array['info', 'warning', 'error'])[i % 3 + 1], 'cue', 'x: 1', 'active', 'deployment', 'default',
      (array['draft', 'enabled', 'disabled'])[i % 3 + 1], 'bench', 'bench'
    from generate_series(0, ${POLICIES - 1}) i`;
  await world.sql`vacuum analyze bench.governance_entities`;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Sort Method'?: string;
  Plans?: PlanNode[];
}

/**
 * The plan of the page's query as the repository writes it (its SQL caught by a drizzle logger), for
 * example `Limit > Index Scan (governance_entities_list), 0.1 ms`: each node's first child, then the time PostgreSQL took.
 */
async function plan(database: Database, filters: EntityFilters, offset: number): Promise<string> {
  const queries: { query: string; params: unknown[] }[] = [];
  const db = drizzle(database.sql, { logger: { logQuery: (query, params) => queries.push({ query, params }) } });
  await new EntityRepository({ ...database, db }).list('policy', filters, { limit: PAGE, offset });
  const page = queries.find(({ query }) => query.includes('order by'));
  if (!page) throw new Error(`no query with an order by among ${queries.map(({ query }) => query).join('; ')}`);
  const [{ 'QUERY PLAN': explained }] = await database.sql.unsafe<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }[]>(
    `explain (analyze, timing off, format json) ${page.query}`,
    page.params as never[],
  );
  const nodes: string[] = [];
  for (let node: PlanNode | undefined = explained[0].Plan; node; node = node.Plans?.[0]) {
    const detail = node['Index Name'] ?? node['Sort Method'];
    nodes.push(detail ? `${node['Node Type']} (${detail})` : node['Node Type']);
  }
  return `${nodes.join(' > ')}, ${explained[0]['Execution Time'].toFixed(1)} ms`;
}

export async function benchEntityList(): Promise<void> {
  const world = await startBenchWorld('');
  const database = openDatabase(world.settings);
  try {
    const started = performance.now();
    await seed(world);
    console.log(`(h) ${POLICIES} policies (mixed-case names), seeded in SQL in ${((performance.now() - started) / 1000).toFixed(1)} s; pages of ${PAGE}`);
    for (const [label, query, filters, offset] of [
      ['the first page in the default order', '', {}, 0],
      ['by name descending', '&sort-by=name&sort-order=desc', { 'sort-by': 'name', 'sort-order': 'desc' }, 0],
      ['a deep page', '&offset=9000', {}, 9000],
      ['the text filter', '&text=owner', { text: 'owner' }, 0],
    ] as const) {
      const { p50, p95 } = await timeGets(world, CALLS, `/policies?limit=${PAGE}${query}`);
      console.log(
        `    ${label}, GET /policies?limit=${PAGE}${query}: p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms (${CALLS} warm calls); ` +
          `plan: ${await plan(database, filters, offset)}`,
      );
    }
  } finally {
    await database.close();
    await world.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchEntityList();
}
