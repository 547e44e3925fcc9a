import { randomBytes } from 'node:crypto';

import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { RESOURCES_PER_CALL } from '#lib/governance/evaluation/page-groups';
import { resetSettings } from '#lib/settings/shared-settings';

import type * as llmConfigModule from '../../functions/assistant/llm-config';
import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as metricsModule from '../../functions/governance/metrics';
import type * as policiesModule from '../../functions/governance/policies';
import type * as evaluationSweeperModule from '../../functions/schedules/evaluation-sweeper';
import type * as evaluationDeadLettersModule from '../../functions/workers/evaluation-dead-letters';
import type * as evaluationWorkerModule from '../../functions/workers/evaluation-worker';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { FakeHostedModel } from '../fakes/hosted-model';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { present } from '../support/present';

const SCHEMA = 'it_publish_evaluation';
const WORKER = 'cgp-test-evaluation-worker';
const BATCH = 2;

/** A remote engine that fails the resources whose descriptor says `owner: nobody`, and records what it was asked. */
const engine = new FakeServer((request: RecordedRequest<{ content?: string } | undefined>) => {
  const failing = String(request.body?.content ?? '').includes('owner: nobody');
  return { status: 200, body: { satisfiesPolicy: !failing, errors: failing ? ['owner is missing'] : [] } };
});

/** Resources per environment; the same ids live in several environments, as one data product deployed twice. */
const perimeter: Record<string, { id: string; displayName: string; version: string; content: string }[]> = {};
/** Pages (environment:offset) the resolver answers 500 for. */
const brokenPages = new Set<string>();
/** Pages (environment:offset) whose next call waits until the test lets it answer. */
const heldPages = new Map<string, Promise<void>>();
const resolver = new FakeServer(async (request) => {
  const { environment, offset, limit } = request.query;
  if (brokenPages.has(`${environment}:${offset}`)) return { status: 500, body: { error: 'resolver broken' } };
  const held = heldPages.get(`${environment}:${offset}`);
  if (held) {
    heldPages.delete(`${environment}:${offset}`);
    await held;
  }
  const all = perimeter[environment] ?? [];
  return {
    status: 200,
    body: { resources: all.slice(Number(offset), Number(offset) + Number(limit)), page: { offset: Number(offset), limit: Number(limit), total: all.length } },
  };
});

/** The assistant's LLM, for LLM policies: its verdict is chosen by a `[fake:<mode>]` marker in the rule or the descriptor. */
const model = new FakeHostedModel();

/** serverless offline's Lambda endpoint, as the local queue uses it: it records each asynchronous invocation of the worker. */
const lambda = new FakeServer<SQSEvent>(() => ({ status: 202 }));

let database: Database;
let policies: typeof policiesModule;
let metrics: typeof metricsModule;
let evaluation: typeof evaluationModule;
let worker: typeof evaluationWorkerModule;
let deadLetters: typeof evaluationDeadLettersModule;
let sweeper: typeof evaluationSweeperModule;

const resources = (environment: string, count: number, failing: string[] = []) =>
  (perimeter[environment] = Array.from({ length: count }, (_, i) => {
    const id = `dp-${i + 1}`;
    return { id, displayName: `Data product ${i + 1}`, version: '1.0.0', content: `id: ${id}\nowner: ${failing.includes(id) ? 'nobody' : 'alice'}\n` };
  }));

let typeCount = 0;
async function freshType(batchSize = BATCH) {
  const name = `publish-type-${++typeCount}`;
  const types = await import('../../functions/governance/resource-types');
  const registered = await invoke(types.registerResourceType, {
    method: 'POST',
    path: '/v1/computational-governance/resource-types',
    body: { name, configuration: { resourceName: 'id', batchSize }, resolverConfiguration: { url: resolver.url, path: '/resources' } },
  });
  expect(registered.status).toBe(201);
  return name;
}

async function draft(resourceType: string, changes: Record<string, unknown> = {}, kind: 'policy' | 'metric' = 'policy') {
  const created = await invoke(kind === 'policy' ? policies.createPolicy : metrics.createMetric, {
    method: 'POST',
    path: `/v1/computational-governance/${kind === 'policy' ? 'policies' : 'metrics'}`,
    body: { name: 'owner required', resourceType, severity: 'error', engine: 'remote', remoteEngineUrl: `${engine.url}/check`, ...changes },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const publish = (id: string, kind: 'policy' | 'metric' = 'policy') =>
  invoke(kind === 'policy' ? policies.publishPolicy : metrics.publishMetric, {
    method: 'POST',
    path: `/v1/computational-governance/${kind === 'policy' ? 'policies' : 'metrics'}/${id}/publish`,
    params: { id },
  });
const readReport = async (id: string) =>
  (await invoke(evaluation.getEvaluationReport, { method: 'GET', path: `/v1/computational-governance/evaluation-reports/${id}`, params: { id } })).body;

const contextWith = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

/** The SQS-shaped events the local queue sent to the worker, oldest first. */
const invocations = () => lambda.requests.map((request) => ({ path: request.path, type: request.headers['x-amz-invocation-type'], event: request.body }));
let delivered = 0;

/** Delivers the messages sent so far (and those their runs send) to the worker, as the queue would; the worker's answers, in order. */
async function deliverAll(remainingMs = 900_000) {
  const answers = [];
  while (delivered < lambda.requests.length) {
    const { event } = invocations()[delivered++];
    answers.push({ event, answer: await worker.handler(event, contextWith(remainingMs)) });
  }
  return answers;
}

const taskRows = (reportId: string) =>
  database.sql.unsafe(
    `select environment, status, "offset", attempts, last_error, sent_at from "${SCHEMA}".evaluation_tasks where report_id = $1 order by environment`,
    [reportId],
  );
const resultRows = (reportId: string) =>
  database.sql.unsafe(`select environment, resource_id, outcome from "${SCHEMA}".evaluation_results where report_id = $1 order by environment, resource_id`, [
    reportId,
  ]);
/** The page requests (environment:offset:limit) the resolver received for a resource type. */
const pagesAsked = (type: string) =>
  resolver.requests.filter((r) => r.query['resource-types'] === type).map((r) => `${r.query.environment}:${r.query.offset}:${r.query.limit}`);

beforeAll(async () => {
  await engine.start();
  await resolver.start();
  await lambda.start();
  await model.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.evaluation.resolver-retries = 2
    computational-governance-platform.assistant.encryption-key = "${randomBytes(32).toString('base64')}"`,
  );
  vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', lambda.url);
  vi.stubEnv('EVALUATION_WORKER_FUNCTION', WORKER);
  vi.stubEnv('EVALUATION_QUEUE_MAX_RECEIVES', '3');
  resetSettings();
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  metrics = await import('../../functions/governance/metrics');
  evaluation = await import('../../functions/governance/evaluation');
  worker = await import('../../functions/workers/evaluation-worker');
  deadLetters = await import('../../functions/workers/evaluation-dead-letters');
  sweeper = await import('../../functions/schedules/evaluation-sweeper');
});

beforeEach(() => {
  engine.reset();
  resolver.reset();
  lambda.reset();
  delivered = 0;
  brokenPages.clear();
  for (const environment of Object.keys(perimeter)) delete perimeter[environment];
});

afterAll(async () => {
  await releaseHandlers();
  resetSettings();
  await database.close();
  await engine.stop();
  await resolver.stop();
  await lambda.stop();
  await model.stop();
});

describe('publishing evaluates against every resource of every environment, through the queue', () => {
  it('answers at once with the report id, then the worker pages every environment and completes the report', async () => {
    const type = await freshType();
    resources('development', 5, ['dp-2']);
    resources('production', 4);
    // qa has no resource of the type.
    const id = await draft(type);

    const published = await publish(id);
    expect(published.status).toBe(200);
    expect(published.body.status).toBe('enabled');
    const reportId = published.body.evaluationReportId;
    expect(reportId).toMatch(/^[0-9a-f-]{36}$/);
    // Nothing was evaluated yet: the work is in the queue.
    expect(engine.requests).toHaveLength(0);
    const pending = await readReport(reportId);
    expect(pending).toMatchObject({
      status: 'pending',
      evaluationScope: 'policy',
      cause: 'publish',
      environment: null,
      resourceType: type,
      evaluationResults: [],
    });

    // One SQS-shaped message per environment, as asynchronous invocations of the worker.
    const sent = invocations();
    expect(sent).toHaveLength(3);
    for (const { path, type: invocationType, event } of sent) {
      expect(path).toBe(`/2015-03-31/functions/${WORKER}/invocations`);
      expect(invocationType).toBe('Event');
      expect(event.Records).toHaveLength(1);
      expect(event.Records[0]).toMatchObject({ eventSource: 'aws:sqs', attributes: { ApproximateReceiveCount: '1' } });
      expect(JSON.parse(event.Records[0].body)).toEqual({ taskId: expect.any(String) });
    }
    expect((await taskRows(reportId)).map((task) => task.environment)).toEqual(['development', 'production', 'qa']);
    expect((await taskRows(reportId)).every((task) => task.sent_at !== null)).toBe(true);

    const answers = await deliverAll();
    expect(answers.map(({ answer }) => answer)).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }, { batchItemFailures: [] }]);

    // Every page asked with limit = batch size, from offset 0 until a short page, in each environment.
    expect(pagesAsked(type).sort()).toEqual(
      ['development:0:2', 'development:2:2', 'development:4:2', 'production:0:2', 'production:2:2', 'production:4:2', 'qa:0:2'].sort(),
    );
    // Every resource evaluated once, in each environment it lives in.
    expect(engine.requests).toHaveLength(9);
    const rows = await resultRows(reportId);
    expect(rows.map((row) => `${row.environment}/${row.resource_id}/${row.outcome}`)).toEqual([
      'development/dp-1/ok',
      'development/dp-2/error',
      'development/dp-3/ok',
      'development/dp-4/ok',
      'development/dp-5/ok',
      'production/dp-1/ok',
      'production/dp-2/ok',
      'production/dp-3/ok',
      'production/dp-4/ok',
    ]);
    const report = await readReport(reportId);
    expect(report).toMatchObject({ status: 'completed', outcome: 'error', passed: false, progress: { total: 9, done: 9 }, error: null });
    expect(report.evaluationResults).toHaveLength(9);
    expect(report.completedAt).not.toBeNull();
    // The results entered the history, as the policy's latest results.
    const latest = await invoke(evaluation.listResults, {
      method: 'GET',
      path: '/v1/computational-governance/results',
      query: { policyId: id, latest: 'true', limit: '50' },
    });
    expect(latest.body.data).toHaveLength(9);
  });

  it.each([
    { engines: 'a remote engine (called once per pair)', perCall: RESOURCES_PER_CALL.called, policy: {} },
    { engines: 'CUE (in process)', perCall: RESOURCES_PER_CALL.inProcess, policy: { engine: 'cue', cueScript: 'owner: "alice"', remoteEngineUrl: undefined } },
  ])('splits the work: with little time left, a worker hands the rest of the perimeter on in a new message ($engines)', async ({ perCall, policy }) => {
    // Pages of 0.6 x an engine call's resources: two pages make one call.
    const page = 0.6 * perCall;
    const total = 2.5 * page;
    const type = await freshType(page);
    resources('development', total);
    const id = await draft(type, { environment: 'development', ...policy });
    const { evaluationReportId: reportId } = (await publish(id)).body;
    expect(invocations()).toHaveLength(delivered + 1);
    const asked = engine.requests.length;

    // The first delivery evaluates one engine call's worth of pages and sends the next message;
    // meanwhile the report shows its progress.
    const first = invocations()[delivered];
    delivered += 1;
    expect(await worker.handler(first.event, contextWith(1_000))).toEqual({ batchItemFailures: [] });
    expect(invocations()).toHaveLength(delivered + 1);
    expect(JSON.parse(invocations()[delivered].event.Records[0].body)).toEqual(JSON.parse(first.event.Records[0].body));
    const running = await readReport(reportId);
    expect(running).toMatchObject({ status: 'running', environment: 'development', progress: { done: 2 * page, total } });
    expect(running.evaluationResults).toHaveLength(2 * page);

    await deliverAll(1_000);
    expect(pagesAsked(type)).toEqual([`development:0:${page}`, `development:${page}:${page}`, `development:${2 * page}:${page}`]);
    expect(engine.requests.length - asked).toBe('engine' in policy ? 0 : total);
    expect(await readReport(reportId)).toMatchObject({ status: 'completed', outcome: 'ok', passed: true, progress: { total, done: total } });
  });

  it('evaluates metrics on publish too, and a passive policy starts nothing', async () => {
    const type = await freshType();
    resources('qa', 3);
    const metricEngine = new FakeServer(() => ({ status: 200, body: { value: 42 } }));
    await metricEngine.start();
    try {
      const metric = await draft(
        type,
        { environment: 'qa', remoteEngineUrl: `${metricEngine.url}/m`, thresholds: [{ label: 'fine', color: 'green', min: 0 }] },
        'metric',
      );
      const { evaluationReportId } = (await publish(metric, 'metric')).body;
      await deliverAll();
      const report = await readReport(evaluationReportId);
      expect(report).toMatchObject({ status: 'completed', progress: { total: 3, done: 3 } });
      expect(report.evaluationResults.map((result: { result: { value: number } }) => result.result.value)).toEqual([42, 42, 42]);
    } finally {
      await metricEngine.stop();
    }
    const passive = await draft(type, { engine: undefined, remoteEngineUrl: undefined, trigger: 'passive' });
    const published = await publish(passive);
    expect(published.body).toMatchObject({ status: 'enabled', evaluationReportId: null });
  });

  it('publishing an enabled policy again evaluates it again, as a new report', async () => {
    const type = await freshType();
    resources('production', 1);
    const id = await draft(type, { environment: 'production' });
    const first = (await publish(id)).body.evaluationReportId;
    const second = (await publish(id)).body.evaluationReportId;
    expect(second).not.toBe(first);
    await deliverAll();
    expect((await readReport(first)).status).toBe('completed');
    expect((await readReport(second)).status).toBe('completed');
  });
});

describe('publishing an LLM policy', () => {
  it('judges every resource through the queue with the stored LLM, like the other engines', async () => {
    const llmConfig: typeof llmConfigModule = await import('../../functions/assistant/llm-config');
    const saved = await invoke(llmConfig.saveLlmConfig, {
      method: 'POST',
      path: '/assistant/v1/llm/config',
      body: { provider: 'hosted_llm', api_key: 'sk-publish-key', endpoint: model.url, api_version: '2024-10-21', model: 'gpt-4o', deployment: 'judge' },
    });
    expect(saved.status).toBe(201);
    const type = await freshType();
    perimeter.development = ['dp-1', 'dp-2', 'dp-3'].map((id) => ({
      id,
      displayName: id,
      version: '1.0.0',
      content: `id: ${id}\nowner: ${id === 'dp-2' ? 'nobody [fake:not-ok]' : 'alice'}\n`,
    }));
    const id = await draft(type, { engine: 'llm', remoteEngineUrl: undefined, llmRule: 'Every data product names its owner.' });
    const reportId = (await publish(id)).body.evaluationReportId as string;
    await deliverAll();
    expect(await readReport(reportId)).toMatchObject({ status: 'completed', outcome: 'error', passed: false });
    expect((await resultRows(reportId)).map((row) => `${row.environment}/${row.resource_id}/${row.outcome}`)).toEqual([
      'development/dp-1/ok',
      'development/dp-2/error',
      'development/dp-3/ok',
    ]);
    expect(model.requests.map((request) => request.path)).toEqual(Array.from({ length: 3 }, () => '/openai/deployments/judge/chat/completions'));
    expect(engine.requests).toHaveLength(0);
  });
});

describe('nothing lost, nothing doubled', () => {
  it('a message delivered twice (one after the other, or at once) writes every result once', async () => {
    const type = await freshType();
    resources('development', 3);
    const id = await draft(type, { environment: 'development' });
    const { evaluationReportId: reportId } = (await publish(id)).body;
    const [{ event }] = invocations();

    const [a, b] = await Promise.all([worker.handler(event, contextWith(900_000)), worker.handler(event, contextWith(900_000))]);
    expect(a).toEqual({ batchItemFailures: [] });
    expect(b).toEqual({ batchItemFailures: [] });
    await worker.handler(event, contextWith(900_000));

    expect(engine.requests).toHaveLength(3);
    expect(await resultRows(reportId)).toHaveLength(3);
    expect(await readReport(reportId)).toMatchObject({ status: 'completed', progress: { total: 3, done: 3 } });
  });

  it('when the queue cannot be reached at publish, the job stays recorded and the sweeper sends it later', async () => {
    const type = await freshType();
    resources('qa', 2);
    const id = await draft(type, { environment: 'qa' });
    const down = new FakeServer();
    await down.start();
    const closedUrl = down.url;
    await down.stop();
    vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', closedUrl);
    resetSettings();
    let reportId: string;
    try {
      const published = await publish(id);
      expect(published.status).toBe(200);
      reportId = published.body.evaluationReportId;
    } finally {
      vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', lambda.url);
      resetSettings();
    }
    const [task] = await taskRows(reportId);
    expect(task).toMatchObject({ status: 'queued', sent_at: null });
    expect(await readReport(reportId)).toMatchObject({ status: 'pending' });

    // Not sent again at once (the publish call may still be sending), but once it waited long enough.
    await sweeper.handler();
    expect(invocations()).toHaveLength(0);
    await database.sql.unsafe(`update "${SCHEMA}".evaluation_tasks set updated_at = now() - interval '1 minute' where report_id = $1`, [reportId]);
    const swept = await sweeper.handler();
    expect(swept.tasks.sent).toBe(1);
    expect(invocations()).toHaveLength(1);
    await deliverAll();
    expect(await readReport(reportId)).toMatchObject({ status: 'completed', progress: { total: 2, done: 2 } });
  });

  it('a page that keeps failing is retried, then dead-lettered: the report fails naming the page and keeps the other results', async () => {
    const type = await freshType();
    resources('development', 3);
    resources('production', 5);
    brokenPages.add('production:2');
    const id = await draft(type);
    const { evaluationReportId: reportId } = (await publish(id)).body;

    const answers = await deliverAll();
    const productionMessage = present(
      answers.find(({ answer }) => answer.batchItemFailures.length === 1),
      'the message with one failed item',
    );
    expect(productionMessage.answer.batchItemFailures).toEqual([{ itemIdentifier: productionMessage.event.Records[0].messageId }]);
    // The resolver call was retried with backoff (evaluation.resolver-retries = 2) before the page failed.
    expect(pagesAsked(type).filter((page) => page === 'production:2:2')).toHaveLength(3);
    expect(await readReport(reportId)).toMatchObject({ status: 'running' });

    // SQS delivers the message again; it fails again; after maxReceiveCount it goes to the dead-letter queue.
    await worker.handler(productionMessage.event, contextWith(900_000));
    await worker.handler(productionMessage.event, contextWith(900_000));
    const production = (await taskRows(reportId)).find((task) => task.environment === 'production');
    expect(production).toMatchObject({ status: 'queued', attempts: 3, offset: 2 });
    expect(await deadLetters.handler(productionMessage.event)).toEqual({ batchItemFailures: [] });

    const report = await readReport(reportId);
    expect(report).toMatchObject({ status: 'failed', outcome: 'failed', passed: false });
    expect(report.error).toContain('Environment production, page at offset 2 (limit 2)');
    expect(report.error).toContain('answered 500');
    // Development and the first page of production were kept.
    expect((await resultRows(reportId)).map((row) => `${row.environment}/${row.resource_id}`)).toEqual([
      'development/dp-1',
      'development/dp-2',
      'development/dp-3',
      'production/dp-1',
      'production/dp-2',
    ]);
    expect(report.progress).toEqual({ total: 5, done: 5 });
  });

  it('a report that waits on a retry says why: which page, what failed (naming no address), attempt n of m, the next try', async () => {
    const type = await freshType();
    // 5 resources in pages of 2: one engine call reads the pages at 0, 2 and 4; the one at 2 waits.
    resources('qa', 5);
    brokenPages.add('qa:2');
    const id = await draft(type, { environment: 'qa' });
    const { evaluationReportId: reportId } = (await publish(id)).body;
    // The worker's call for the page at 2 fails; its retry is held until the report has been read.
    let release: () => void = () => undefined;
    const retried = new Promise<void>((resolve) => {
      resolver.requests.length = 0;
      const poll = setInterval(() => {
        if (pagesAsked(type).length === 2) {
          brokenPages.delete('qa:2');
          heldPages.set('qa:2', new Promise<void>((answer) => (release = answer)));
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    const running = deliverAll();
    await retried;
    await vi.waitFor(() => expect(pagesAsked(type)).toHaveLength(3), { timeout: 10_000, interval: 20 });
    const waiting = await readReport(reportId);
    expect(waiting.status).toBe('running');
    expect(waiting.progress.waiting).toEqual([
      {
        environment: 'qa',
        offset: 2,
        kind: 'call',
        reason: `The perimeter resolver of ${type} answered 500`,
        attempt: 1,
        attempts: 3,
        nextTryAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    release();
    await running;
    const done = await readReport(reportId);
    expect(done).toMatchObject({ status: 'completed', progress: { total: 5, done: 5 } });
    expect(done.progress.waiting).toBeUndefined();

    // A page that fails every call waits for its message to be delivered again (locally: the sweeper, 30 s on).
    brokenPages.add('qa:2');
    const again = (await publish(id)).body.evaluationReportId;
    const before = Date.now();
    await deliverAll();
    const redelivery = (await readReport(again)).progress.waiting;
    expect(redelivery).toEqual([
      {
        environment: 'qa',
        offset: 2,
        kind: 'delivery',
        reason: `Environment qa, page at offset 2 (limit 2): The perimeter resolver of ${type} answered 500`,
        attempt: 1,
        attempts: 3,
        nextTryAt: expect.any(String),
      },
    ]);
    expect(Date.parse(redelivery[0].nextTryAt) - before).toBeGreaterThanOrEqual(29_000);
    // The task keeps the whole account for the logs and a failed report.
    expect((await taskRows(again))[0].last_error).toContain(`answered 500 to ${resolver.url}/resources`);
    brokenPages.clear();
    await database.sql.unsafe(`update "${SCHEMA}".evaluation_tasks set updated_at = now() - interval '1 minute' where report_id = $1`, [again]);
    await sweeper.handler();
    await deliverAll();
    const recovered = await readReport(again);
    expect(recovered).toMatchObject({ status: 'completed' });
    expect(recovered.progress.waiting).toBeUndefined();
  });

  it('pages read ahead while the ones before are written: a retry of theirs is still shown once those are written, and a failure keeps those', async () => {
    // Pages of half an engine call: the pages at 0 and `page` make one call; the last, short page, at `call`, is read meanwhile, and fails.
    const call = RESOURCES_PER_CALL.called;
    const page = call / 2;
    const type = await freshType(page);
    resources('qa', call + 0.8 * page);
    brokenPages.add(`qa:${call}`);
    const id = await draft(type, { environment: 'qa' });
    const { evaluationReportId: reportId } = (await publish(id)).body;
    let release: () => void = () => undefined;
    const retried = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (pagesAsked(type).includes(`qa:${call}:${page}`)) {
          brokenPages.delete(`qa:${call}`);
          heldPages.set(`qa:${call}`, new Promise<void>((answer) => (release = answer)));
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    const running = deliverAll();
    await retried;
    // The first two pages are written while the retry of the third is held: the report still says what it waits for.
    await vi.waitFor(async () => expect((await readReport(reportId)).progress.done).toBe(call), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(pagesAsked(type).filter((asked) => asked === `qa:${call}:${page}`)).toHaveLength(2), { timeout: 10_000, interval: 20 });
    expect((await readReport(reportId)).progress.waiting).toEqual([
      {
        environment: 'qa',
        offset: call,
        kind: 'call',
        reason: `The perimeter resolver of ${type} answered 500`,
        attempt: 1,
        attempts: 3,
        nextTryAt: expect.any(String),
      },
    ]);
    release();
    await running;
    const total = call + 0.8 * page;
    expect(await readReport(reportId)).toMatchObject({ status: 'completed', progress: { total, done: total } });
    expect(pagesAsked(type)).toEqual([`qa:0:${page}`, `qa:${page}:${page}`, `qa:${call}:${page}`, `qa:${call}:${page}`]);

    // A page read ahead that keeps failing: the pages before it are written, and the failure names it.
    brokenPages.add(`qa:${call}`);
    const again = (await publish(id)).body.evaluationReportId;
    const [{ answer }] = await deliverAll();
    expect(answer.batchItemFailures).toHaveLength(1);
    expect(await resultRows(again)).toHaveLength(call);
    expect((await taskRows(again))[0]).toMatchObject({ status: 'queued', offset: call, attempts: 1 });
    expect((await readReport(again)).progress.waiting).toEqual([
      {
        environment: 'qa',
        offset: call,
        kind: 'delivery',
        reason: `Environment qa, page at offset ${call} (limit ${page}): The perimeter resolver of ${type} answered 500`,
        attempt: 1,
        attempts: 3,
        nextTryAt: expect.any(String),
      },
    ]);
  });

  it('evaluates the next pages while the ones before are written: a write that fails is what is tried again, and the pages written before it are kept', async () => {
    // Pages of half an engine call: engine calls at 0, `call` and 2 x `call` (half of one); the write of the second is refused.
    const call = RESOURCES_PER_CALL.called;
    const type = await freshType(call / 2);
    resources('qa', 2.5 * call);
    const id = await draft(type, { environment: 'qa' });
    const { evaluationReportId: reportId } = (await publish(id)).body;
    await database.sql.unsafe(
      `create function "${SCHEMA}".refuse_write() returns trigger language plpgsql as $$ begin raise exception 'the database refused the write'; end $$`,
    );
    await database.sql.unsafe(
      `create trigger refuse_write before insert on "${SCHEMA}".evaluation_results for each row
       when (new.report_id = '${reportId}' and new.resource_id = 'dp-${1.2 * call}') execute function "${SCHEMA}".refuse_write()`,
    );
    try {
      const [{ answer }] = await deliverAll();
      expect(answer.batchItemFailures).toHaveLength(1);
    } finally {
      await database.sql.unsafe(`drop trigger refuse_write on "${SCHEMA}".evaluation_results; drop function "${SCHEMA}".refuse_write()`);
    }
    expect(await resultRows(reportId)).toHaveLength(call);
    const [task] = await taskRows(reportId);
    expect(task).toMatchObject({ status: 'queued', offset: call, attempts: 1 });
    // What the database said, not the query it refused.
    expect(task.last_error).toBe(`Environment qa, page at offset ${call} (limit ${call / 2}): the database refused a query: the database refused the write`);

    await database.sql.unsafe(`update "${SCHEMA}".evaluation_tasks set updated_at = now() - interval '1 minute' where report_id = $1`, [reportId]);
    expect((await sweeper.handler()).tasks.redelivered).toBe(1);
    await deliverAll();
    expect(await readReport(reportId)).toMatchObject({ status: 'completed', progress: { total: 2.5 * call, done: 2.5 * call } });
    const written = await resultRows(reportId);
    expect(new Set(written.map((row) => row.resource_id)).size).toBe(2.5 * call);
    expect(written).toHaveLength(2.5 * call);
  });

  it('locally, where no queue redelivers, the sweeper redelivers a failed page and dead-letters it after the receive limit', async () => {
    const type = await freshType();
    resources('qa', 3);
    brokenPages.add('qa:0');
    const id = await draft(type, { environment: 'qa' });
    const { evaluationReportId: reportId } = (await publish(id)).body;
    const age = () => database.sql.unsafe(`update "${SCHEMA}".evaluation_tasks set updated_at = now() - interval '1 minute' where report_id = $1`, [reportId]);

    await deliverAll();
    await age();
    expect((await sweeper.handler()).tasks).toEqual({ sent: 0, redelivered: 1, deadLettered: 0 });
    // The page comes back meanwhile: the redelivered message completes the report.
    brokenPages.clear();
    await deliverAll();
    expect(await readReport(reportId)).toMatchObject({ status: 'completed', progress: { total: 3, done: 3 } });

    // Now a page that never comes back: EVALUATION_QUEUE_MAX_RECEIVES = 3 attempts, then the dead-letter path.
    brokenPages.add('qa:0');
    const again = (await publish(id)).body.evaluationReportId;
    const ageAgain = () =>
      database.sql.unsafe(`update "${SCHEMA}".evaluation_tasks set updated_at = now() - interval '1 minute' where report_id = $1`, [again]);
    await deliverAll();
    for (let attempt = 2; attempt <= 3; attempt++) {
      await ageAgain();
      expect((await sweeper.handler()).tasks.redelivered).toBe(1);
      await deliverAll();
    }
    await ageAgain();
    expect((await sweeper.handler()).tasks).toEqual({ sent: 0, redelivered: 0, deadLettered: 1 });
    const failed = await readReport(again);
    expect(failed).toMatchObject({ status: 'failed', outcome: 'failed' });
    expect(failed.error).toMatch(/Environment qa, page at offset 0 \(limit 2\): .*answered 500.* \(gave up after 3 attempts\)/);
  });
});
