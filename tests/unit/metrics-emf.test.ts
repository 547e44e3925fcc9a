import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import { endpoint } from '#lib/http/endpoint';
import { httpHandler } from '#lib/http/handler';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { functionHandler } from '#lib/service/function-handler';
import { resetSettings } from '#lib/settings/shared-settings';

import { apiGatewayEvent, lambdaContext } from '../support/api-gateway-event';

// The metrics leave a function as CloudWatch embedded metric format (EMF) lines on stdout, written
// by Powertools: read back here as CloudWatch reads them (JSON with an `_aws` block), not grepped.

interface EmfLine {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/** Runs `run` and answers the EMF lines it wrote to stdout. */
async function emfLinesOf(run: () => Promise<unknown>): Promise<EmfLine[]> {
  const written: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line): line is EmfLine => typeof line._aws === 'object');
}

/** The metrics of a line, by name: unit and value. */
const metricsOf = (line: EmfLine) =>
  Object.fromEntries(line._aws.CloudWatchMetrics[0].Metrics.map(({ Name, Unit }) => [Name, { unit: Unit, value: line[Name] }]));

const pingEndpoint = endpoint({
  operationId: 'pingThing',
  method: 'GET',
  path: '/ping',
  summary: 'test endpoint',
  tags: [],
  public: true,
  responses: { 200: { description: 'pong' } },
});
const failingEndpoint = endpoint({ ...pingEndpoint, operationId: 'failThing', query: z.object({}) });

// The tests' settings turn metrics off (vitest.config.ts): these turn them on, as a deployment has them.
beforeEach(() => {
  vi.stubEnv('METRICS_ENABLED', 'true');
  resetSettings();
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetSettings();
});

describe('metrics in the embedded metric format', () => {
  it('an HTTP call flushes its count, latency and server errors: in all under the service, and by operation', async () => {
    const handler = httpHandler(pingEndpoint, async () => ({ status: 200, body: { pong: true } }));
    const lines = await emfLinesOf(() => handler(apiGatewayEvent({ method: 'GET', path: '/ping' }), lambdaContext()));
    const total = lines.find((line) => line._aws.CloudWatchMetrics[0].Dimensions[0].length === 1);
    expect(total?._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'ComputationalGovernance', Dimensions: [['service']] });
    expect(total?.service).toBe('computational-governance-platform');
    expect(metricsOf(total as EmfLine)).toMatchObject({
      Requests: { unit: 'Count', value: 1 },
      RequestLatency: { unit: 'Milliseconds', value: expect.any(Number) },
      ServerErrors: { unit: 'Count', value: 0 },
    });
    // The breakdown by operation: one line of its own.
    const byOperation = lines.filter((line) => line.function === 'pingThing');
    expect(byOperation.map((line) => line._aws.CloudWatchMetrics[0].Dimensions)).toEqual([[['service', 'function']]]);
    expect(metricsOf(byOperation[0])).toMatchObject({
      Requests: { unit: 'Count', value: 1 },
      RequestLatency: { unit: 'Milliseconds', value: expect.any(Number) },
      ServerErrors: { unit: 'Count', value: 0 },
    });
  });

  it('counts a call that failed with a 500 as a server error', async () => {
    const handler = httpHandler(failingEndpoint, async () => {
      throw new Error('boom');
    });
    const lines = await emfLinesOf(() => handler(apiGatewayEvent({ method: 'GET', path: '/ping' }), lambdaContext()));
    const total = lines.find((line) => line._aws.CloudWatchMetrics[0].Dimensions[0].length === 1) as EmfLine;
    expect(metricsOf(total).ServerErrors).toEqual({ unit: 'Count', value: 1 });
  });

  it('a scheduled function flushes what it recorded, a dimension breaking the total down on a line of its own', async () => {
    const handler = functionHandler(async () => {
      recordMetric('OutboxDelivered', MetricUnit.Count, 3, { topic: 'audit' });
      recordMetric('OutboxBacklog', MetricUnit.Count, 7);
    });
    const lines = await emfLinesOf(() => handler());
    const total = lines.find((line) => line._aws.CloudWatchMetrics[0].Dimensions[0].length === 1) as EmfLine;
    expect(metricsOf(total)).toEqual({ OutboxDelivered: { unit: 'Count', value: 3 }, OutboxBacklog: { unit: 'Count', value: 7 } });
    const [byTopic] = lines.filter((line) => line.topic === 'audit');
    expect(byTopic._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'topic']]);
    expect(metricsOf(byTopic)).toEqual({ OutboxDelivered: { unit: 'Count', value: 3 } });
  });

  it('writes under the namespace of the settings, and nothing when they turn metrics off', async () => {
    vi.stubEnv('METRICS_NAMESPACE', 'Platform/Governance');
    resetSettings();
    const handler = functionHandler(async () => recordMetric('ApprovalsPending', MetricUnit.Count, 2));
    const [line] = await emfLinesOf(() => handler());
    expect(line._aws.CloudWatchMetrics[0].Namespace).toBe('Platform/Governance');

    vi.stubEnv('METRICS_ENABLED', 'false');
    resetSettings();
    expect(await emfLinesOf(() => handler())).toEqual([]);
  });

  it('records nothing in a process that runs no function (the cgp command line runs the engines too)', async () => {
    vi.resetModules();
    const fresh = await import('#lib/observability/metrics');
    const lines = await emfLinesOf(async () => fresh.recordMetric('Evaluations', fresh.MetricUnit.Count, 1, { engine: 'cue' }));
    expect(lines).toEqual([]);
  });
});
