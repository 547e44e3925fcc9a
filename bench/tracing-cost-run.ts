/**
 * One process of the tracing bench (bench/tracing-cost.ts): `node --import tsx bench/tracing-cost-run.ts
 * <untraced|traced>` with DATABASE_URL and CGP_CONFIG_FILE of the bench's database, and the tokens
 * to call it with (BENCH_ADMIN_TOKEN, BENCH_CI_TOKEN); prints its
 * numbers as one JSON line. The service's modules choose whether to trace when they load, so this
 * file imports none of them (nor anything that does) before its environment is set.
 */
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { benchApiEvent } from './api-event';

const WARM_UP = 10;
const SAMPLES = 100;
export const MODES = ['untraced', 'traced'] as const;
export type Mode = (typeof MODES)[number];

export interface ModeRun {
  readonly p50: number;
  readonly p95: number;
  /** Warm calls timed. */
  readonly samples: number;
  /** The segments the fake daemon received. */
  readonly segments: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** An API Gateway v2 event, as the HTTP API sends it. */
const context = (id: number) => ({ awsRequestId: `bench-${id}`, functionName: 'bench', getRemainingTimeInMillis: () => 29_000 }) as unknown as Context;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** One process's run: saves and publishes the policies of its type, then times the Evaluate calls. */
async function runMode(mode: Mode): Promise<ModeRun> {
  let segments = 0;
  if (mode === 'traced') {
    const daemon = dgram.createSocket('udp4');
    daemon.on('message', () => segments++);
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    daemon.unref();
    // As Lambda sets them: the service's modules, imported below, read them as they load.
    Object.assign(process.env, {
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      LAMBDA_TASK_ROOT: process.cwd(),
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
      _X_AMZN_TRACE_ID: 'Root=1-6745a1b2-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1',
      _HANDLER: 'functions/governance/evaluation.evaluate',
    });
  }
  const { benchDescriptor, benchPolicies } = await import('./evaluate-api');
  const policies = await import('../functions/governance/policies');
  const { evaluate } = (await import('../functions/governance/evaluation')) as { evaluate: Handler };
  const admin = `Bearer ${process.env.BENCH_ADMIN_TOKEN}`;
  const ci = `Bearer ${process.env.BENCH_CI_TOKEN}`;
  let invocation = 0;
  const call = async (handler: Handler, request: APIGatewayProxyEventV2) => {
    const response = await handler(request, context(invocation++));
    if ((response.statusCode ?? 500) >= 300) throw new Error(`${request.routeKey} answered ${response.statusCode}: ${response.body}`);
    return JSON.parse(response.body ?? '{}') as Record<string, unknown>;
  };
  const resourceType = `dataproduct-${mode}`;
  for (const [i, cueScript] of benchPolicies().entries()) {
    const created = await call(
      policies.createPolicy as Handler,
      benchApiEvent('POST', '/v1/computational-governance/policies', admin, { name: `bench ${mode} ${i}`, resourceType, engine: 'cue', cueScript }),
    );
    const id = String(created.id);
    await call(policies.publishPolicy as Handler, benchApiEvent('POST', `/v1/computational-governance/policies/${id}/publish`, admin, undefined, { id }));
  }
  const durations: number[] = [];
  for (let i = 0; i < WARM_UP + SAMPLES; i++) {
    const body = { environment: 'development', resourceType, descriptor: JSON.stringify(benchDescriptor(`urn:dp:bench-${i}`)) };
    const started = performance.now();
    const report = await call(evaluate, benchApiEvent('POST', '/v1/computational-governance/evaluate', ci, body));
    const elapsed = performance.now() - started;
    if (report.status !== 'completed') throw new Error(`unexpected report: ${JSON.stringify(report).slice(0, 500)}`);
    if (i >= WARM_UP) durations.push(elapsed);
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 50), p95: percentile(durations, 95), samples: SAMPLES, segments };
}

const mode = process.argv[2] as Mode;
if (MODES.includes(mode)) {
  console.log(JSON.stringify(await runMode(mode)));
  // The pool and the CUE workers would keep the process alive: the run is done.
  process.exit(0);
}
