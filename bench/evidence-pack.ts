/**
 * Bench: an evidence pack of now over 500,000 newest verdicts of 1,000,000 results (100,000 resources x 5 policies, 2
 * environments x 2 types), through serverless offline's API and queue on an embedded PostgreSQL:
 * the time from the request to the completed pack (built by the evaluation worker), its size, the
 * time to download it by parts, and to verify it as `cgp evidence verify` does.
 * Run alone with `node --import tsx bench/evidence-pack.ts`, or through `npm run bench`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import { checkpointKey } from '#lib/audit/checkpoints';
import type { EvidencePack } from '#lib/governance/evidence/evidence';
import { verifyPack } from '#lib/governance/evidence/pack-verification';

import { type BenchWorld, startBenchWorld } from './bench-world';

const TYPES = ['dataproduct', 'pipeline'];
const ENVIRONMENTS = ['development', 'production'];
const POLICIES_PER_TYPE = 5;
const RESOURCES = 100_000;
const PAIRS = RESOURCES * POLICIES_PER_TYPE;
/** Each pair was evaluated twice: the pack reads the newest of 2 x PAIRS results. */
const ROUNDS = 2;

/** The policies (enabled: the database records their status), and ROUNDS results of each pair over the last day, in SQL. */
async function seed(world: BenchWorld): Promise<void> {
  await world.sql`
    insert into bench.governance_entities (id, version, kind, latest, name, resource_type, severity, engine, cue_script, trigger, timing, strategy, status, created_by, updated_by)
    select md5('entity' || t || '-' || s)::uuid, 1, 'policy', true, 'Policy ' || t || '-' || s, (${TYPES}::text[])[t + 1], 'error', 'cue',
      'owner: =~"@"' || repeat(E'\n// a line of the policy', 40), 'active', 'deployment', 'default', 'enabled', 'bench', 'bench'
    from generate_series(0, ${TYPES.length - 1}) t, generate_series(0, ${POLICIES_PER_TYPE - 1}) s`;
  // Result i is of pair i % PAIRS; resource n = pair / 5 is in environment n % 2, of type (n / 2) % 2; a tenth of the pairs fail.
  await world.sql`
    insert into bench.evaluation_results (recorded, entity_id, entity_version, entity_kind, entity_status, severity, outcome, resource_id, environment, resource_type, result, created_at)
    select true, md5('entity' || ((p / 5 / 2) % 2) || '-' || (p % 5))::uuid, 1, 'policy', 'enabled', 'error',
      case when abs(hashint4(p)) % 10 = 0 then 'error' else 'ok' end, 'urn:bench:' || (p / 5), (${ENVIRONMENTS}::text[])[(p / 5) % 2 + 1],
      (${TYPES}::text[])[(p / 5 / 2) % 2 + 1],
      case when abs(hashint4(p)) % 10 = 0 then '{"satisfiesPolicy": false, "isError": false, "errors": ["owner: invalid value \\"x\\" (out of bound =~\\"@\\")"]}'
        else '{"satisfiesPolicy": true, "isError": false, "errors": []}' end::jsonb,
      now() - interval '1 day' + i * interval '1 day' / ${PAIRS * ROUNDS} - interval '1 minute'
    from generate_series(0, ${PAIRS * ROUNDS - 1}) i, lateral (select i % ${PAIRS} as p) pair`;
  await world.sql`vacuum analyze bench.evaluation_results, bench.governance_entity_statuses`;
}

/** The pack once the worker completed it, read every 100 ms. */
async function completed(world: BenchWorld, id: string): Promise<EvidencePack> {
  for (;;) {
    const pack = await world.call<EvidencePack>('GET', `/evidence/${id}`);
    if (pack.status === 'completed') return pack;
    if (pack.status === 'failed') throw new Error(`the pack failed: ${pack.error}`);
    await sleep(100);
  }
}

/** The zip, part by part (Range), as cgp evidence export downloads it. */
async function download(world: BenchWorld, id: string, size: number): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < size;) {
    const response = await world.fetch(`/evidence/${id}/pack`, { range: `bytes=${offset}-${offset + 4 * 1024 * 1024 - 1}` });
    const part = Buffer.from(await response.arrayBuffer());
    parts.push(part);
    offset += part.length;
  }
  return Buffer.concat(parts);
}

export async function benchEvidencePack(): Promise<void> {
  const world = await startBenchWorld('');
  try {
    let started = performance.now();
    await seed(world);
    console.log(
      `    ${PAIRS * ROUNDS} results of ${PAIRS} pairs (${RESOURCES} resources), seeded in SQL in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const run of ['first', 'second']) {
      started = performance.now();
      const asked = await world.call<EvidencePack>('POST', '/evidence', {});
      const pack = await completed(world, asked.evidenceId);
      const builtMs = performance.now() - started;
      started = performance.now();
      const zip = await download(world, pack.evidenceId, pack.size ?? 0);
      const downloadMs = performance.now() - started;
      started = performance.now();
      const verdict = verifyPack(zip, (await checkpointKey(world.settings)).publicKey);
      const verifyMs = performance.now() - started;
      if (!verdict.verified) throw new Error(`the pack does not verify: ${verdict.reason}`);
      console.log(
        `    ${run} pack: ${pack.summary?.verdicts} verdicts, ${pack.summary?.policies} policies, ${((pack.size ?? 0) / 1e6).toFixed(1)} MB; ` +
          `asked to completed ${(builtMs / 1000).toFixed(1)} s, downloaded in ${Math.ceil((pack.size ?? 0) / 4_194_304)} parts in ${(downloadMs / 1000).toFixed(1)} s, ` +
          `verified in ${(verifyMs / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    await world.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log('# An evidence pack of 500,000 verdicts (1,000,000 results) through the API and the queue (serverless offline, embedded PostgreSQL)');
  await benchEvidencePack();
}
