/**
 * Bench (f): reading a report of 100,000 results through the HTTP API of serverless offline on an
 * embedded PostgreSQL: the report with its counts and first page, then every result page by page,
 * as JSON and as NDJSON. Prints times, answer sizes and throughput.
 * Run alone with `node --import tsx bench/report-read.ts`, or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import { type BenchWorld, startBenchWorld } from './bench-world';

const RESULTS = 100_000;
const PAGE = 1000;

/** A finished report of RESULTS results (every seventh an error with its message), written in SQL. */
async function seedReport(world: BenchWorld): Promise<string> {
  const [report] = await world.sql`
    insert into bench.evaluation_reports (status, scope, cause, environment, resource_type, request, created_by, outcome, passed, total, done, completed_at)
    values ('completed', 'policy', 'publish', 'production', 'dataproduct', '{}', 'bench', 'error', false, ${RESULTS}, ${RESULTS}, now())
    returning id`;
  await world.sql`
    insert into bench.evaluation_results (report_id, recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome, resource_id, resource_display_name, resource_version, environment, resource_type, result)
    select ${report.id}, true, gen_random_uuid(), 1, 'policy', 'enabled', 'error',
      case when i % 7 = 0 then 'error' else 'ok' end,
      'urn:dp:bench-' || i, 'Bench ' || i, '1.4.2', 'production', 'dataproduct',
      case when i % 7 = 0
        then jsonb_build_object('satisfiesPolicy', false, 'isError', false, 'errors', jsonb_build_array('owner: invalid value "Alice" (out of bound =~"^[a-z]+$"):' || chr(10) || '    policy.cue:1:16'))
        else jsonb_build_object('satisfiesPolicy', true, 'isError', false, 'errors', '[]'::jsonb) end
    from generate_series(0, ${RESULTS - 1}) as i`;
  return report.id;
}

/** Every page of the report's results; answer count, bytes and elapsed ms. */
async function readAll(world: BenchWorld, id: string, accept: string): Promise<{ results: number; bytes: number; largest: number; ms: number; pages: number }> {
  const started = performance.now();
  let after: string | null = null;
  let results = 0;
  let bytes = 0;
  let largest = 0;
  let pages = 0;
  do {
    const response = await world.fetch(`/evaluation-reports/${id}/results?limit=${PAGE}${after ? `&after=${after}` : ''}`, { accept });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`page ${pages} answered ${response.status}: ${text.slice(0, 300)}`);
    bytes += Buffer.byteLength(text);
    largest = Math.max(largest, Buffer.byteLength(text));
    pages++;
    if (accept.includes('ndjson')) {
      results += text.split('\n').length - 1;
      after = /after=(\d+)>/.exec(response.headers.get('link') ?? '')?.[1] ?? null;
    } else {
      const page = JSON.parse(text) as { data: unknown[]; meta: { next: string | null } };
      results += page.data.length;
      after = page.meta.next;
    }
  } while (after);
  return { results, bytes, largest, ms: performance.now() - started, pages };
}

export async function benchReportRead(): Promise<void> {
  const world = await startBenchWorld('');
  try {
    const id = await seedReport(world);
    await world.call('GET', `/evaluation-reports/${id}`); // warm the function
    const started = performance.now();
    const response = await world.fetch(`/evaluation-reports/${id}`);
    const first = await response.text();
    const firstMs = performance.now() - started;
    const report = JSON.parse(first) as { counts: { total: number }; evaluationResults: unknown[] };
    if (report.counts.total !== RESULTS || report.evaluationResults.length !== PAGE)
      throw new Error(`unexpected report: counts ${JSON.stringify(report.counts)}, ${report.evaluationResults.length} results`);
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    const firstBytes = Buffer.byteLength(first);
    console.log(
      `(f) Report of ${RESULTS} results: GET of the report (counts + first ${PAGE} results) ${firstMs.toFixed(0)} ms, ${mb(firstBytes)} MB (${(firstBytes / 1024 / 1024 / (firstMs / 1000)).toFixed(1)} MB/s)`,
    );
    for (const [label, accept] of [
      ['JSON', 'application/json'],
      ['NDJSON', 'application/x-ndjson'],
    ] as const) {
      const all = await readAll(world, id, accept);
      if (all.results !== RESULTS) throw new Error(`${label}: read ${all.results} results, not ${RESULTS}`);
      console.log(
        `    every result as ${label}, ${all.pages} pages of ${PAGE}: ${(all.ms / 1000).toFixed(1)} s = ${Math.round(RESULTS / (all.ms / 1000))} results/s, ${mb(all.bytes)} MB (${(all.bytes / 1024 / 1024 / (all.ms / 1000)).toFixed(1)} MB/s), largest answer ${mb(all.largest)} MB`,
      );
    }
  } finally {
    await world.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchReportRead();
}
