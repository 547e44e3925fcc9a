import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as policiesModule from '../../functions/governance/policies';
import type * as outboxDispatcherModule from '../../functions/schedules/outbox-dispatcher';
import { FakeServer } from '../fakes/fake-server';
import { FakeXrayDaemon, type SentSegment } from '../fakes/fake-xray-daemon';
import type * as invokeModule from '../support/invoke';

// This file runs the handlers as a Lambda with active tracing runs them: AWS_EXECUTION_ENV and
// LAMBDA_TASK_ROOT set, the trace header of the invocation in _X_AMZN_TRACE_ID, the X-Ray daemon
// (a fake on 127.0.0.1) in AWS_XRAY_DAEMON_ADDRESS. The service's modules load the tracer when they
// are loaded, so every one of them is imported after that environment is set.

const SCHEMA = 'it_tracing';
const TRACE_ROOT = '1-6745a1b2-0123456789abcdef01234567';
/** In the descriptor (and so in the CUE errors of the answer): never in a trace. */
const MARKER = 'descriptor-marker-5d1c';

const daemon = new FakeXrayDaemon();
const engine = new FakeServer(() => ({ status: 200, body: { satisfiesPolicy: true, errors: [] } }));

let invoke: typeof invokeModule.invoke;
let policies: typeof policiesModule;
let evaluation: typeof evaluationModule;
let releaseHandlers: () => Promise<void>;
let bearer = '';

/** As Lambda sets them for each invocation: the handler's name and the trace header. */
function invocation(handler: string) {
  vi.stubEnv('_HANDLER', handler);
  vi.stubEnv('_X_AMZN_TRACE_ID', `Root=${TRACE_ROOT};Parent=53995c3f42cd8ad8;Sampled=1`);
}

async function enabledPolicy(body: Record<string, unknown>) {
  invocation('functions/governance/policies.createPolicy');
  const created = await invoke(policies.createPolicy, { method: 'POST', path: '/v1/computational-governance/policies', body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { id } = created.body;
  const moved = await invoke(policies.changeStatusOfPolicy, {
    method: 'POST',
    path: `/v1/computational-governance/policies/${id}/status`,
    params: { id },
    body: { status: 'enabled' },
  });
  expect(moved.status).toBe(200);
}

const EVALUATE_HANDLER = 'functions/governance/evaluation.evaluate';

/** An Evaluate call, as the invocation of its Lambda. */
function evaluateCall(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  invocation(EVALUATE_HANDLER);
  return invoke(evaluation.evaluate, { method: 'POST', path: '/v1/computational-governance/evaluate', body: { environment: 'development', ...body }, headers });
}

/** The handler's subsegment of the invocation `handler`, once sent (when the invocation ends). */
const handlerSegment = (handler: string) => daemon.segmentNamed(`## ${handler}`);

/** No segment holds the descriptor, the caller's token, or an error's text. */
function expectNothingSecret(): void {
  for (const segment of daemon.all()) {
    expect(segment.text).not.toContain(MARKER);
    expect(segment.text).not.toContain(bearer);
    expect(segment.cause).toBeUndefined();
    expect(segment.metadata).toBeUndefined();
  }
}

beforeAll(async () => {
  await daemon.start();
  await engine.start();
  vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs22.x');
  vi.stubEnv('LAMBDA_TASK_ROOT', process.cwd());
  vi.stubEnv('AWS_XRAY_DAEMON_ADDRESS', daemon.address);
  invocation('setup');
  const handlers = await import('../support/handlers');
  await handlers.useHandlersOn(
    SCHEMA,
    `computational-governance-platform.resource-types = [
      { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "${engine.url}", path = "/resources" } }
    ]`,
  );
  releaseHandlers = handlers.releaseHandlers;
  ({ invoke } = await import('../support/invoke'));
  const { authorized } = await import('../support/tokens');
  bearer = (await authorized({})).authorization.replace(/^Bearer /, '');
  policies = await import('../../functions/governance/policies');
  evaluation = await import('../../functions/governance/evaluation');
  await enabledPolicy({ name: 'owner is alice', resourceType: 'dataproduct', severity: 'error', engine: 'cue', cueScript: 'owner: "alice"' });
  await enabledPolicy({ name: 'remote', resourceType: 'dataproduct', severity: 'error', engine: 'remote', remoteEngineUrl: `${engine.url}/verdict` });
});

beforeEach(() => daemon.reset());

afterAll(async () => {
  await releaseHandlers();
  await engine.stop();
  await daemon.stop();
});

describe('traces of a Lambda with active tracing', () => {
  it('an Evaluate call: the handler annotated with the request id, its queries, each engine, the remote engine call by host and path', async () => {
    const answer = await evaluateCall(
      { resourceType: 'dataproduct', descriptor: `id: dp-1\nname: Sales\nversion: 1.0.0\nowner: ${MARKER}\n` },
      { 'x-request-id': 'trace-request-1', prefer: 'wait=20' },
    );
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).toContain(MARKER);

    const top = await handlerSegment(EVALUATE_HANDLER);
    expect(top).toMatchObject({ trace_id: TRACE_ROOT, type: 'subsegment' });
    expect(top.annotations).toMatchObject({ requestId: 'trace-request-1', operation: 'evaluate', Service: 'computational-governance-platform' });
    expect(top.fault).toBeUndefined();
    const below = daemon.below(top);
    const named = (name: string) => below.filter((segment) => segment.name === name);
    expect(named('## database query').length).toBeGreaterThan(0);
    expect(named('## cue engine')).toHaveLength(1);
    const [remote] = named('## remote engine');
    const calls = daemon.below(remote).filter((segment) => segment.name === '127.0.0.1');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      namespace: 'remote',
      http: { request: { url: 'http://127.0.0.1/verdict/v1/evaluate', method: 'POST' }, response: { status: 200 } },
    });
    // The remote engine heard of the trace.
    expect(engine.requests.at(-1)?.headers['x-amzn-trace-id']).toMatch(new RegExp(`^Root=${TRACE_ROOT};Parent=${calls[0].id};Sampled=1$`));
    expectNothingSecret();
  });

  it('a refused call flags its handler subsegment, without the error text', async () => {
    const answer = await evaluateCall({ resourceType: MARKER, descriptor: `owner: ${MARKER}` });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    const top = await handlerSegment(EVALUATE_HANDLER);
    expect(top).toMatchObject({ error: true });
    expect(top.fault).toBeUndefined();
    expectNothingSecret();
  });

  it('a scheduled function: its handler annotated with the invocation id, its queries below it', async () => {
    const handler = 'functions/schedules/outbox-dispatcher.handler';
    invocation(handler);
    const dispatcher: typeof outboxDispatcherModule = await import('../../functions/schedules/outbox-dispatcher');
    const { lambdaContext } = await import('../support/api-gateway-event');
    await dispatcher.handler(undefined, lambdaContext('invocation-42'));
    const top = await handlerSegment(handler);
    expect(top.annotations).toMatchObject({ requestId: 'invocation-42' });
    expect(daemon.below(top).some((segment: SentSegment) => segment.name === '## database query')).toBe(true);
    expectNothingSecret();
  });
});
