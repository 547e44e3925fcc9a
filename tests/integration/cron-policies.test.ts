import { randomBytes } from 'node:crypto';

import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { governance } from '#lib/governance/composition';
import { dispatchDueCronPolicies } from '#lib/governance/scheduling/cron-dispatcher';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';
import type { Notification } from '#lib/platform/notifications';
import { resetSettings } from '#lib/settings/shared-settings';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import type * as llmConfigModule from '../../functions/assistant/llm-config';
import type * as policiesModule from '../../functions/governance/policies';
import type * as outboxDispatcherModule from '../../functions/schedules/outbox-dispatcher';
import type * as evaluationWorkerModule from '../../functions/workers/evaluation-worker';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { FakeHostedModel } from '../fakes/hosted-model';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { present } from '../support/present';
import { settingsWith } from '../support/settings-files';

const SCHEMA = 'it_cron_policies';
const EVERY_FIVE_MINUTES = '0 */5 * * * ?';

/** Fails the resources whose descriptor says `owner: nobody`. */
const engine = new FakeServer((request: RecordedRequest<{ content?: string } | undefined>) => {
  const failing = String(request.body?.content ?? '').includes('owner: nobody');
  return { status: 200, body: { satisfiesPolicy: !failing, errors: failing ? ['owner is missing'] : [] } };
});
const perimeter: { id: string; content: string }[] = [];
let resolverDown = false;
const resolver = new FakeServer((request) => {
  if (resolverDown) return { status: 503, body: { error: 'down' } };
  const offset = Number(request.query.offset);
  return { status: 200, body: { resources: perimeter.slice(offset, offset + Number(request.query.limit)) } };
});
const lambda = new FakeServer<SQSEvent>(() => ({ status: 202 }));
/** The events backend and the notification service. */
const events = new FakeServer<{ topic: string; payload: unknown }>(() => ({ status: 202, body: {} }));
const notifications = new FakeServer<Notification>(() => ({ status: 200, body: {} }));
/** The assistant's LLM, for LLM policies: a `[fake:not-ok]` marker in a descriptor fails it. */
const model = new FakeHostedModel();

const SETTINGS = () => `computational-governance-platform {
  assistant.encryption-key = "${randomBytes(32).toString('base64')}"
  evaluation.resolver-retries = 0
  events { enabled = true, events-backend-base-url = "${events.url}/api/events", runtime-policy-failed-topic = "governance.runtime-policy-failed" }
  notification { enabled = true, url = "${notifications.url}/api/notifications", secret = "notification-secret", failure-event = "scheduled-policy-failure" }
  resource-types = [ { name = "dataproduct", configuration { resource-name = "id", batch-size = "10" }, resolver-configuration { url = "${resolver.url}", path = "/resources" } } ]
}`;

let database: Database;
let policies: typeof policiesModule;
let worker: typeof evaluationWorkerModule;
let outboxDispatcher: typeof outboxDispatcherModule;

const context = { getRemainingTimeInMillis: () => 900_000 } as unknown as Context;
let delivered = 0;
async function deliverAll() {
  while (delivered < lambda.requests.length) await worker.handler(lambda.requests[delivered++].body, context);
}

const BASE = '/v1/computational-governance/policies';
async function cronPolicy(changes: Record<string, unknown> = {}) {
  const created = await invoke(policies.createPolicy, {
    method: 'POST',
    path: BASE,
    body: {
      name: 'owner set',
      resourceType: 'dataproduct',
      environment: 'production',
      severity: 'error',
      engine: 'remote',
      remoteEngineUrl: `${engine.url}/check`,
      timing: 'runtime',
      cronExpression: EVERY_FIVE_MINUTES,
      ...changes,
    },
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; version: number };
}
const publish = (id: string) => invoke(policies.publishPolicy, { method: 'POST', path: `${BASE}/${id}/publish`, params: { id } });
const move = (id: string, status: string) =>
  invoke(policies.changeStatusOfPolicy, { method: 'POST', path: `${BASE}/${id}/status`, params: { id }, body: { status } });

const schedule = async (id: string) =>
  (
    await database.sql.unsafe(
      `select entity_version, cron_expression, next_run_at, last_run_at, last_report_id from "${SCHEMA}".cron_schedules where entity_id = $1`,
      [id],
    )
  )[0];
const reportsOf = async (id: string) =>
  database.sql.unsafe(`select id, status, cause, outcome from "${SCHEMA}".evaluation_reports where request->'entities'->0->>'id' = $1 order by created_at`, [
    id,
  ]);
const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

/** Flushes the outbox: what the background delivery and the outbox dispatcher send. */
async function flushOutbox() {
  await backgroundDispatchSettled();
  await outboxDispatcher.handler();
}
const sentEvents = () => events.requests.filter((request) => request.path === '/api/events');
const failureNotifications = () => notifications.requests.filter((request) => request.body?.event === 'scheduled-policy-failure');

beforeAll(async () => {
  for (const server of [engine, resolver, lambda, events, notifications, model]) await server.start();
  await useHandlersOn(SCHEMA, SETTINGS());
  vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', lambda.url);
  resetSettings();
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  worker = await import('../../functions/workers/evaluation-worker');
  outboxDispatcher = await import('../../functions/schedules/outbox-dispatcher');
});

beforeEach(async () => {
  await flushOutbox();
  for (const server of [engine, resolver, lambda, events, notifications, model]) server.reset();
  delivered = 0;
  resolverDown = false;
  perimeter.length = 0;
  // Each test sees only its own schedules.
  await database.sql.unsafe(`delete from "${SCHEMA}".cron_schedules`);
});

afterAll(async () => {
  await releaseHandlers();
  resetSettings();
  await database.close();
  for (const server of [engine, resolver, lambda, events, notifications, model]) await server.stop();
});

describe('scheduling', () => {
  it('an enabled runtime policy with a cron expression is scheduled, run when due by the dispatcher, and moved to its next run', async () => {
    perimeter.push({ id: 'dp-1', content: 'id: dp-1\nowner: alice\n' }, { id: 'dp-2', content: 'id: dp-2\nowner: alice\n' });
    const policy = await cronPolicy();
    expect(await schedule(policy.id)).toBeUndefined();
    await publish(policy.id);
    const scheduled = await schedule(policy.id);
    expect(scheduled).toMatchObject({ entity_version: 1, cron_expression: EVERY_FIVE_MINUTES, last_run_at: null });
    // Every five minutes: the next multiple of five minutes.
    const nextRun = new Date(scheduled.next_run_at);
    expect(nextRun.getUTCMinutes() % 5).toBe(0);
    expect(nextRun.getUTCSeconds()).toBe(0);
    expect(nextRun.getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(nextRun.getTime()).toBeGreaterThan(Date.now());

    const publishReports = (await reportsOf(policy.id)).length;
    lambda.reset();
    // Not due yet.
    expect((await dispatchDueCronPolicies(await governance(), new Date(nextRun.getTime() - 1000))).started).toEqual([]);
    expect(lambda.requests).toHaveLength(0);

    const tick = new Date(nextRun.getTime() + 1000);
    const { started } = await dispatchDueCronPolicies(await governance(), tick);
    expect(started).toEqual([{ entityId: policy.id, reportId: expect.any(String) }]);
    const after = await schedule(policy.id);
    expect(new Date(after.next_run_at).getTime()).toBe(nextRun.getTime() + 5 * 60_000);
    expect(new Date(after.last_run_at).getTime()).toBe(tick.getTime());
    expect(after.last_report_id).toBe(started[0].reportId);
    // The run goes through the same queue worker as publish.
    expect(lambda.requests).toHaveLength(1);
    await deliverAll();
    const reports = await reportsOf(policy.id);
    expect(reports).toHaveLength(publishReports + 1);
    expect(reports.at(-1)).toMatchObject({ id: started[0].reportId, status: 'completed', cause: 'schedule', outcome: 'ok' });
    // The same tick again runs nothing.
    expect((await dispatchDueCronPolicies(await governance(), tick)).started).toEqual([]);
  });

  it('two dispatchers racing on the same due policy start one run', async () => {
    const policy = await cronPolicy();
    await publish(policy.id);
    const tick = minutesFromNow(6);
    const [a, b] = await Promise.all([dispatchDueCronPolicies(await governance(), tick), dispatchDueCronPolicies(await governance(), tick)]);
    expect([...a.started, ...b.started]).toHaveLength(1);
    expect((await reportsOf(policy.id)).filter((report) => report.cause === 'schedule')).toHaveLength(1);
  });

  it('runs missed while the service was down give one catch-up run, not one per missed tick', async () => {
    const policy = await cronPolicy();
    await publish(policy.id);
    // Down for an hour: twelve ticks missed.
    await database.sql.unsafe(`update "${SCHEMA}".cron_schedules set next_run_at = now() - interval '1 hour' where entity_id = $1`, [policy.id]);
    const now = new Date();
    expect((await dispatchDueCronPolicies(await governance(), now)).started).toHaveLength(1);
    expect(new Date((await schedule(policy.id)).next_run_at).getTime()).toBeGreaterThan(now.getTime());
    expect((await dispatchDueCronPolicies(await governance(), now)).started).toEqual([]);
    expect((await reportsOf(policy.id)).filter((report) => report.cause === 'schedule')).toHaveLength(1);
  });
});

describe('the schedule follows the lifecycle', () => {
  it('disabling or moving out of enabled stops it, enabling again restarts it', async () => {
    const policy = await cronPolicy();
    await publish(policy.id);
    expect(await schedule(policy.id)).toBeDefined();
    expect((await move(policy.id, 'disabled')).status).toBe(200);
    expect(await schedule(policy.id)).toBeUndefined();
    expect((await dispatchDueCronPolicies(await governance(), minutesFromNow(60))).started).toEqual([]);
    expect((await move(policy.id, 'enabled')).status).toBe(200);
    expect(await schedule(policy.id)).toMatchObject({ entity_version: 1 });
    expect((await move(policy.id, 'grace')).status).toBe(200);
    expect(await schedule(policy.id)).toBeUndefined();
  });

  it('a new expression reschedules it once its version is published; deleting the policy removes its schedule', async () => {
    const policy = await cronPolicy();
    await publish(policy.id);
    const before = await schedule(policy.id);
    // Editing an enabled policy writes version 2 as a draft: version 1 keeps running as it was.
    const edited = await invoke(policies.updatePolicy, {
      method: 'PUT',
      path: `${BASE}/${policy.id}`,
      params: { id: policy.id },
      body: {
        name: 'owner set',
        resourceType: 'dataproduct',
        environment: 'production',
        severity: 'error',
        engine: 'remote',
        remoteEngineUrl: `${engine.url}/check`,
        timing: 'runtime',
        cronExpression: '0 0 6 ? * MON',
      },
    });
    expect(edited.status).toBe(201);
    expect(await schedule(policy.id)).toEqual(before);
    await publish(policy.id);
    const after = await schedule(policy.id);
    expect(after).toMatchObject({ entity_version: 2, cron_expression: '0 0 6 ? * MON' });
    const nextRun = new Date(after.next_run_at);
    expect([nextRun.getUTCDay(), nextRun.getUTCHours(), nextRun.getUTCMinutes()]).toEqual([1, 6, 0]);

    // A schedule left behind (a version enabled before schedules existed, then disabled) goes with the policy.
    await move(policy.id, 'disabled');
    await database.sql.unsafe(`insert into "${SCHEMA}".cron_schedules (entity_id, entity_version, cron_expression, next_run_at) values ($1, 2, $2, now())`, [
      policy.id,
      EVERY_FIVE_MINUTES,
    ]);
    expect((await invoke(policies.deletePolicy, { method: 'DELETE', path: `${BASE}/${policy.id}`, params: { id: policy.id } })).status).toBe(204);
    expect(await schedule(policy.id)).toBeUndefined();
  });

  it('a deployment-time or passive policy is never scheduled; the dispatcher drops a schedule whose version is no longer enabled', async () => {
    const deployment = await cronPolicy({ timing: 'deployment', cronExpression: null });
    await publish(deployment.id);
    expect(await schedule(deployment.id)).toBeUndefined();
    const stale = await cronPolicy();
    await database.sql.unsafe(
      `insert into "${SCHEMA}".cron_schedules (entity_id, entity_version, cron_expression, next_run_at) values ($1, 1, $2, now() - interval '1 minute')`,
      [stale.id, EVERY_FIVE_MINUTES],
    );
    expect(await dispatchDueCronPolicies(await governance())).toEqual({ started: [], unscheduled: 1 });
    expect(await schedule(stale.id)).toBeUndefined();
  });
});

describe('cron-policies.reload-on-start', () => {
  /** A restart: the start-up tasks with reload-on-start as given. */
  const restart = async (reload: boolean) =>
    runStartupTasks(
      await settingsWith(
        `computational-governance-platform.database.schema = "${SCHEMA}"\ncomputational-governance-platform.cron-policies.reload-on-start = ${reload}\n${SETTINGS()}`,
        inject('databaseUrl'),
      ),
    );

  it('false keeps what was scheduled before the start and adds nothing; true schedules every enabled cron policy and drops the rest', async () => {
    // Only this test's policies are enabled.
    await database.sql.unsafe(`update "${SCHEMA}".governance_entities set status = 'disabled' where status = 'enabled'`);
    const running = await cronPolicy();
    await publish(running.id);
    const kept = await schedule(running.id);
    // Enabled, but not scheduled (as a policy enabled before schedules existed).
    const unscheduled = await cronPolicy({ name: 'enabled before' });
    await publish(unscheduled.id);
    await database.sql.unsafe(`delete from "${SCHEMA}".cron_schedules where entity_id = $1`, [unscheduled.id]);
    // Scheduled, but its policy is disabled.
    const disabled = await cronPolicy({ name: 'disabled' });
    await database.sql.unsafe(
      `insert into "${SCHEMA}".cron_schedules (entity_id, entity_version, cron_expression, next_run_at) values ($1, 1, $2, now() + interval '1 hour')`,
      [disabled.id, EVERY_FIVE_MINUTES],
    );

    const off = await restart(false);
    expect(off.tasks.cronPolicies).toBe('2 kept as scheduled before (reload-on-start is false)');
    expect(await schedule(running.id)).toEqual(kept);
    expect(await schedule(unscheduled.id)).toBeUndefined();
    expect(await schedule(disabled.id)).toBeDefined();

    const on = await restart(true);
    expect(on.tasks.cronPolicies).toBe('2 scheduled, 1 unscheduled');
    // Its expression did not change: it keeps its next run.
    expect(await schedule(running.id)).toEqual(kept);
    expect(await schedule(unscheduled.id)).toMatchObject({ entity_version: 1, cron_expression: EVERY_FIVE_MINUTES });
    expect(await schedule(disabled.id)).toBeUndefined();
  });
});

describe('failures of a scheduled run', () => {
  it('non-compliant resources: exactly one runtime-policy-failed event and one failure-event notification; a passing run sends neither', async () => {
    perimeter.push(
      { id: 'dp-1', content: 'id: dp-1\nowner: alice\n' },
      { id: 'dp-2', content: 'id: dp-2\nowner: nobody\n' },
      { id: 'dp-3', content: 'id: dp-3\nowner: alice\n' },
    );
    const policy = await cronPolicy({ name: 'owner is set' });
    await publish(policy.id);
    await deliverAll();
    await flushOutbox();
    // The publish-time evaluation is no scheduled run: it announces nothing.
    expect(sentEvents()).toHaveLength(0);
    expect(failureNotifications()).toHaveLength(0);

    const { started } = await dispatchDueCronPolicies(await governance(), minutesFromNow(6));
    await deliverAll();
    await flushOutbox();
    expect(sentEvents()).toHaveLength(1);
    expect(sentEvents()[0].body).toEqual({
      topic: 'governance.runtime-policy-failed',
      payload: { policyId: policy.id, version: 1, environment: 'production', reportId: started[0].reportId, failed: 1, total: 3 },
      idempotencyKey: sentEvents()[0].headers['idempotency-key'],
    });
    expect(failureNotifications()).toHaveLength(1);
    expect(failureNotifications()[0].body).toMatchObject({
      event: 'scheduled-policy-failure',
      entity: { id: policy.id, name: 'owner is set', type: 'policy' },
      reportId: started[0].reportId,
    });
    expect(failureNotifications()[0].body.message).toContain('found 1 of 3 evaluations not compliant');

    events.reset();
    notifications.reset();
    perimeter[1].content = 'id: dp-2\nowner: bob\n';
    await dispatchDueCronPolicies(await governance(), minutesFromNow(11));
    await deliverAll();
    await flushOutbox();
    expect(sentEvents()).toHaveLength(0);
    expect(failureNotifications()).toHaveLength(0);
  });

  it('a run whose only findings an exception waives announces nothing, and its queued results are waived', async () => {
    perimeter.push({ id: 'dp-1', content: 'id: dp-1\nowner: alice\n' }, { id: 'dp-2', content: 'id: dp-2\nowner: nobody\n' });
    const policy = await cronPolicy();
    const exceptions = await import('../../functions/governance/exceptions');
    const waiver = await invoke(exceptions.createException, {
      method: 'POST',
      path: '/v1/computational-governance/exceptions',
      body: {
        policyId: policy.id,
        resourceId: 'dp-*',
        environment: 'production',
        reason: 'owners being migrated',
        expiresAt: minutesFromNow(60).toISOString(),
      },
    });
    expect(waiver.status).toBe(201);
    await publish(policy.id);
    const { started } = await dispatchDueCronPolicies(await governance(), minutesFromNow(6));
    await deliverAll();
    await flushOutbox();
    expect(sentEvents()).toHaveLength(0);
    expect(failureNotifications()).toHaveLength(0);
    const outcomes = await database.sql.unsafe(`select resource_id, outcome from "${SCHEMA}".evaluation_results where report_id = $1 order by resource_id`, [
      started[0].reportId,
    ]);
    expect(outcomes.map((row) => [row.resource_id, row.outcome])).toEqual([
      ['dp-1', 'ok'],
      ['dp-2', 'waived'],
    ]);
  });

  it('a run that cannot evaluate (resolver down until dead-lettered) is announced too; an events backend that is down loses nothing', async () => {
    const policy = await cronPolicy({ name: 'resolver down' });
    await publish(policy.id);
    await deliverAll();
    resolverDown = true;
    events.answer({ status: 503 });
    const { started } = await dispatchDueCronPolicies(await governance(), minutesFromNow(6));
    const before = lambda.requests.length;
    await deliverAll();
    expect(lambda.requests).toHaveLength(before);
    // The queue's last delivery failed: the dead-letter queue's function ends the task and the report.
    const deadLetters = await import('../../functions/workers/evaluation-dead-letters');
    await deadLetters.handler(present(lambda.requests.at(-1), 'the last Lambda invocation').body);
    expect((await reportsOf(policy.id)).at(-1)).toMatchObject({ id: started[0].reportId, status: 'failed' });
    await backgroundDispatchSettled();
    // The first delivery met a 503: the event stays in the outbox and goes out on a later pass.
    expect(sentEvents()).toHaveLength(1);
    await database.sql.unsafe(`update "${SCHEMA}".outbox set next_attempt_at = now() where delivered_at is null`);
    await outboxDispatcher.handler();
    expect(sentEvents()).toHaveLength(2);
    expect(sentEvents()[1].body.payload).toEqual({
      policyId: policy.id,
      version: 1,
      environment: 'production',
      reportId: started[0].reportId,
      failed: 0,
      total: 0,
    });
    expect(failureNotifications()).toHaveLength(1);
    expect(failureNotifications()[0].body.message).toContain('could not be evaluated everywhere');
  });
});

describe('an LLM policy on a schedule', () => {
  it('is judged by the stored LLM at each run, and a descriptor that did not change is not asked again', async () => {
    const llmConfig: typeof llmConfigModule = await import('../../functions/assistant/llm-config');
    const saved = await invoke(llmConfig.saveLlmConfig, {
      method: 'POST',
      path: '/assistant/v1/llm/config',
      body: { provider: 'hosted_llm', api_key: 'sk-cron-key', endpoint: model.url, api_version: '2024-10-21', model: 'gpt-4o', deployment: 'judge' },
    });
    expect(saved.status).toBe(201);
    perimeter.push({ id: 'dp-1', content: 'id: dp-1\nowner: alice\n' }, { id: 'dp-2', content: 'id: dp-2\nowner: nobody [fake:not-ok]\n' });
    const policy = await cronPolicy({ name: 'owner is a person', engine: 'llm', remoteEngineUrl: undefined, llmRule: 'The owner is a named person.' });
    await publish(policy.id);
    await deliverAll();
    const judgements = () => model.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(judgements()).toHaveLength(2);

    const { started } = await dispatchDueCronPolicies(await governance(), minutesFromNow(6));
    await deliverAll();
    expect((await reportsOf(policy.id)).at(-1)).toMatchObject({ id: started[0].reportId, status: 'completed', cause: 'schedule', outcome: 'error' });
    const outcomes = await database.sql.unsafe(`select resource_id, outcome from "${SCHEMA}".evaluation_results where report_id = $1 order by resource_id`, [
      started[0].reportId,
    ]);
    expect(outcomes.map((row) => `${row.resource_id}:${row.outcome}`)).toEqual(['dp-1:ok', 'dp-2:error']);
    // The same descriptors under the same version: the kept answers, no new question.
    expect(judgements()).toHaveLength(2);
    expect(engine.requests).toHaveLength(0);
  });
});
