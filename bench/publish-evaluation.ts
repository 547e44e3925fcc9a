/**
 * Bench (e): publish of one CUE policy against 5,000 descriptors (~4.7 KB each) served by a fake
 * perimeter resolver in pages of 50, through serverless offline, its local queue and an embedded
 * PostgreSQL, from the publish call to the report `completed`. Prints resources per second and how
 * the workers' time was split between the resolver, the engine and the database, and the memory of
 * the stack (serverless offline + PostgreSQL process trees, PSS: bench-world.ts), once with
 * cue-config.evaluator = wasm and once with native (each in a fresh world), and their ratios.
 * Run alone with `node --import tsx bench/publish-evaluation.ts` (BENCH_EVALUATORS=native for one
 * evaluator only), or through `npm run bench`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

import { benchEvaluators, type BenchWorld, describeMemory, type Evaluator, evaluatorSetting, type Memory, sideBySide, startBenchWorld } from './bench-world';
import { benchDescriptor } from './evaluate-api';

const RESOURCES = 5_000;
const PAGE = 50;

/** The resolver: RESOURCES descriptors in `production`, a third of them with an owner the policy refuses. */
export async function startResolver(): Promise<{ url: string; pages: () => number; stop: () => Promise<void> }> {
  const all = Array.from({ length: RESOURCES }, (_, i) => {
    const id = `urn:dp:bench-${i}`;
    return { id, displayName: `Bench ${i}`, version: '1.4.2', content: JSON.stringify({ ...benchDescriptor(id), owner: i % 3 === 0 ? 'Alice' : 'alice' }) };
  });
  let pages = 0;
  const server = http.createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://resolver').searchParams;
    const offset = Number(query.get('offset'));
    const limit = Number(query.get('limit'));
    const resources = query.get('environment') === 'production' ? all.slice(offset, offset + limit) : [];
    pages++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ resources, page: { offset, limit, total: query.get('environment') === 'production' ? all.length : 0 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pages: () => pages,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface PublishRun {
  readonly perSecond: number;
  /** The same publish again, the evaluation worker running already. */
  readonly warmPerSecond: number;
  readonly memory: Memory;
  readonly peakMb: number;
}

/** One publish of a new policy against the whole perimeter, from the call to the report completed: resources/s and where the time went. */
async function timedPublish(
  world: BenchWorld,
  name: string,
  resolver: { pages: () => number },
): Promise<{ perSecond: number; evaluator: string; line: string; peakMb: number }> {
  const pagesBefore = resolver.pages();
  const policy = await world.call<{ id: string; evaluator: string }>('POST', '/policies', {
    name,
    resourceType: 'dataproduct',
    environment: 'production',
    engine: 'cue',
    cueScript: 'owner: string & =~"^[a-z]+$"',
  });
  const stackMb = async () => (await world.memory()).total.pssMb;
  let peakMb = await stackMb();
  const started = performance.now();
  const { evaluationReportId } = await world.call<{ evaluationReportId: string }>('POST', `/policies/${policy.id}/publish`);
  const answeredMs = performance.now() - started;
  let status = 'pending';
  for (let poll = 1; status !== 'completed' && status !== 'failed'; poll++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    [{ status }] = await world.sql`select status from bench.evaluation_reports where id = ${evaluationReportId}`;
    if (poll % 50 === 0) peakMb = Math.max(peakMb, await stackMb());
  }
  const elapsedMs = performance.now() - started;
  const report = await world.call<{ status: string; counts: { total: number }; evaluationResults: unknown[] }>(
    'GET',
    `/evaluation-reports/${evaluationReportId}`,
  );
  if (report.status !== 'completed' || report.counts.total !== RESOURCES)
    throw new Error(`unexpected report: ${JSON.stringify({ ...report, evaluationResults: report.evaluationResults.length })}`);
  const [split] =
    await world.sql`select sum(resolver_ms)::int as resolver, sum(engine_ms)::int as engine, sum(database_ms)::int as database from bench.evaluation_tasks where report_id = ${evaluationReportId}`;
  const share = (ms: number) => `${(ms / 1000).toFixed(1)} s (${((100 * ms) / elapsedMs).toFixed(0)} %)`;
  const perSecond = RESOURCES / (elapsedMs / 1000);
  const line =
    `1 CUE policy x ${RESOURCES} descriptors (${PAGE} per resolver page, ${resolver.pages() - pagesBefore} pages asked): publish answered in ${answeredMs.toFixed(0)} ms, report completed after ${(elapsedMs / 1000).toFixed(2)} s = ${perSecond.toFixed(0)} resources/s; ` +
    `resolver ${share(split.resolver)}, engine ${share(split.engine)}, database ${share(split.database)}; the database's time overlaps the engine's (pages are written while the next are evaluated), the rest ${share(Math.max(0, elapsedMs - split.resolver - split.engine))} is the queue, the invocation, the writes not overlapped and polling`;
  return { perSecond, evaluator: policy.evaluator, line, peakMb };
}

/** One fresh world under `evaluator`, whose policies are saved there so that they store the evaluator it chooses: a first publish (the worker starts), then a second. */
async function publishWith(evaluator: Evaluator, resolver: { url: string; pages: () => number }): Promise<PublishRun> {
  const world = await startBenchWorld(
    `computational-governance-platform.resource-types = [ { name = "dataproduct", configuration { resource-name = "id", batch-size = "${PAGE}" }, resolver-configuration { url = "${resolver.url}", path = "/resources" } } ]
${evaluatorSetting(evaluator)}`,
  );
  try {
    const first = await timedPublish(world, 'owner is a login', resolver);
    console.log(`(e) Publish, cue-config.evaluator = ${evaluator} (policy stored as ${first.evaluator}), first of the stack: ${first.line}`);
    const memory = await world.memory();
    const peakMb = Math.max(first.peakMb, memory.total.pssMb);
    console.log(`    Memory of the stack after the publish: ${describeMemory(memory)}; peak PSS sampled during it ${peakMb} MB`);
    const warm = await timedPublish(world, 'owner is a login, again', resolver);
    console.log(`    The next publish (the evaluation worker running): ${warm.line}`);
    return { perSecond: first.perSecond, warmPerSecond: warm.perSecond, memory, peakMb };
  } finally {
    await world.stop();
  }
}

export async function benchPublishEvaluation(): Promise<void> {
  const resolver = await startResolver();
  try {
    const runs = {} as Partial<Record<Evaluator, PublishRun>>;
    for (const evaluator of benchEvaluators().reverse()) runs[evaluator] = await publishWith(evaluator, resolver);
    const { native, wasm } = runs;
    if (!native || !wasm) return;
    const total = (run: PublishRun) => run.memory.total.pssMb;
    console.log(`    Publish: ${sideBySide(native.perSecond, wasm.perSecond, 'resources/s', native.perSecond / wasm.perSecond)} (target native >= 2000/s)`);
    console.log(
      `    The next publish: ${sideBySide(native.warmPerSecond, wasm.warmPerSecond, 'resources/s', native.warmPerSecond / wasm.warmPerSecond)} (target native >= 5000/s, issue 46)`,
    );
    console.log(
      `    Stack memory (PSS) after the publish: ${sideBySide(total(native), total(wasm), 'MB', total(wasm) / total(native))} (target native < 1024 MB); peak: ${sideBySide(native.peakMb, wasm.peakMb, 'MB', wasm.peakMb / native.peakMb)}`,
    );
  } finally {
    await resolver.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchPublishEvaluation();
}
