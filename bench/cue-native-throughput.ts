/**
 * Bench of the native CUE evaluator on the same work as bench/cue-throughput.ts (the WebAssembly
 * path), in process, no workers:
 *   (b) bulk: 1 policy x 1000 data product descriptors of ~4 KB, evaluations/s
 *   1 descriptor x 20 policies, warm: p50 / p95
 *   (d) the memory it adds to the process
 * and the ratios to the WebAssembly figures when given.
 * Run alone with `node --import tsx bench/cue-native-throughput.ts`, or through `npm run bench`.
 */
import { pathToFileURL } from 'node:url';

import { compileNative, evaluateNative, type NativeProgram } from '@cgp/cue';

import { type CueThroughput, PRODUCT_POLICY, productDescriptor, SMALL_POLICIES } from './cue-throughput';

const BULK = 1000;
const ROUNDS = 10;
const LATENCY_SAMPLES = 200;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

function compiled(script: string): NativeProgram {
  const result = compileNative(script);
  if (!result.ok) throw new Error(`the bench policy does not compile natively: ${JSON.stringify(result)}`);
  return result.program;
}

export interface NativeThroughput {
  readonly bulkPerSecond: number;
  readonly manyPoliciesP50Ms: number;
  readonly manyPoliciesP95Ms: number;
  readonly addedRssMb: number;
}

export async function nativeThroughput(wasm?: CueThroughput, log: (line: string) => void = console.log): Promise<NativeThroughput> {
  const descriptors = Array.from({ length: BULK }, (_, i) => productDescriptor(i));
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sample = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));
  const policy = compiled(PRODUCT_POLICY);
  const options = { requireConcrete: true, metric: false };

  // The best of a few rounds: the first ones include the JIT warming up.
  let bestSeconds = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    let failing = 0;
    for (const descriptor of descriptors) {
      const result = evaluateNative(policy, descriptor, options);
      if (result.kind === 'failed') throw new Error(`unexpected evaluator failure: ${result.reason}`);
      if (result.kind === 'violated') failing++;
    }
    bestSeconds = Math.min(bestSeconds, (performance.now() - started) / 1000);
    sample();
    if (failing !== BULK * 0.3) throw new Error(`unexpected verdicts: ${failing} failing`);
  }
  const bulkPerSecond = BULK / bestSeconds;
  const vsWasm = wasm ? `, ${(bulkPerSecond / wasm.bulkPerSecond).toFixed(0)}x the WebAssembly path (${wasm.bulkPerSecond.toFixed(0)}/s)` : '';
  log(
    `(b) native bulk: 1 policy x ${BULK} descriptors (30% failing), best of ${ROUNDS} rounds ${(bestSeconds * 1000).toFixed(0)} ms: ${bulkPerSecond.toFixed(0)} evaluations/s${vsWasm}`,
  );

  const policies = SMALL_POLICIES.map(compiled);
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES + 20; i++) {
    const started = performance.now();
    for (const small of policies) {
      const result = evaluateNative(small, descriptors[i % 7], options);
      if (result.kind !== 'satisfied') throw new Error(`a compliant descriptor failed: ${JSON.stringify(result)}`);
    }
    if (i >= 20) latencies.push(performance.now() - started);
  }
  sample();
  latencies.sort((a, b) => a - b);
  const [p50, p95] = [percentile(latencies, 50), percentile(latencies, 95)];
  const latencyVsWasm = wasm ? ` (WebAssembly: p50 ${wasm.manyPoliciesP50Ms.toFixed(0)} ms, ${(wasm.manyPoliciesP50Ms / p50).toFixed(0)}x)` : '';
  log(
    `native, 1 descriptor x ${SMALL_POLICIES.length} policies in process, ${LATENCY_SAMPLES} samples: p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms${latencyVsWasm}`,
  );
  const addedRssMb = mb(peakRss - rssBefore);
  log(
    `(d) native: the evaluations added ${addedRssMb} MB to the process at most (no workers)${wasm ? `; the WebAssembly pool took ${wasm.peakRssMb - wasm.rssBeforeMb} MB` : ''}`,
  );
  return { bulkPerSecond, manyPoliciesP50Ms: p50, manyPoliciesP95Ms: p95, addedRssMb };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await nativeThroughput();
