import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { openDatabase } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';
import { resetSettings } from '#lib/settings/shared-settings';

import type * as policiesModule from '../../functions/governance/policies';
import type * as evaluationWorkerModule from '../../functions/workers/evaluation-worker';
import { freePort } from '../../scripts/free-port';
import { type LocalPostgres, startLocalPostgres } from '../../scripts/local-postgres';
import { FakeServer } from '../fakes/fake-server';
import { testSettings } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

// A fault test: PostgreSQL is killed (SIGKILL, every process of it) in the middle of the evaluation
// of a newly published policy over 3,000 resources, and started again on the same data. Every
// result must be there exactly once, and the report completed.

const SCHEMA = 'it_database_crash';
const RESOURCES = 3_000;
const PAGE = 100;
/** The page whose answer the resolver holds back until PostgreSQL is down. */
const CRASH_AT = 1_500;

let parent: string;
let port: number;
let server: LocalPostgres;
let url: string;

const start = async () => {
  server = await startLocalPostgres({ dataDir: path.join(parent, 'data'), runtimeDir: path.join(parent, 'runtime'), persistent: true, port });
  url = server.url;
};

/** Every process of the server: the postmaster (first line of postmaster.pid) and its children, read from /proc. */
async function serverProcesses(): Promise<number[]> {
  const postmaster = Number((await readFile(path.join(parent, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === postmaster) children.push(Number(entry));
  }
  return [postmaster, ...children];
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const resources = Array.from({ length: RESOURCES }, (_, i) => {
  const id = `dp-${String(i + 1).padStart(4, '0')}`;
  return { id, displayName: id, version: '1.0.0', content: `id: ${id}\nowner: ${i % 7 === 0 ? 'nobody' : 'alice'}\n` };
});
let hold: Promise<void> | undefined;
let holding: (() => void) | undefined;
const resolver = new FakeServer(async (request) => {
  const offset = Number(request.query.offset);
  const limit = Number(request.query.limit);
  if (offset === CRASH_AT && hold) {
    holding?.();
    await hold;
  }
  return { status: 200, body: { resources: resources.slice(offset, offset + limit), page: { offset, limit, total: RESOURCES } } };
});
/** The platform's audit receiver: down until the end of the test. */
let auditUp = false;
const auditReceiver = new FakeServer<{ requestId?: string; idempotencyKey?: string }>(() => (auditUp ? { status: 202 } : { status: 503 }));
/** serverless offline's Lambda endpoint, as the local queue uses it: records each invocation of the worker. */
const lambda = new FakeServer<SQSEvent>(() => ({ status: 202 }));

let policies: typeof policiesModule;
let worker: typeof evaluationWorkerModule;
const context = { getRemainingTimeInMillis: () => 900_000 } as unknown as Context;

beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'cgp-crash-pg-'));
  await chmod(parent, 0o755);
  port = await freePort();
  await start();
  await resolver.start();
  await lambda.start();
  await auditReceiver.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.platform-services { base-url = "${auditReceiver.url}", audit { enabled = true, audit-path = "/api/audit" } }
    computational-governance-platform.resource-types = [
      { name = "dataproduct", configuration { resource-name = "id", batch-size = ${PAGE} }, resolver-configuration { url = "${resolver.url}", path = "/resources" } }
    ]`,
    url,
  );
  vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', lambda.url);
  vi.stubEnv('EVALUATION_WORKER_FUNCTION', 'cgp-crash-evaluation-worker');
  resetSettings();
  policies = await import('../../functions/governance/policies');
  worker = await import('../../functions/workers/evaluation-worker');
}, 120_000);

afterAll(async () => {
  await releaseHandlers();
  resetSettings();
  await resolver.stop();
  await lambda.stop();
  await auditReceiver.stop();
  await server.stop().catch(() => undefined);
  await rm(parent, { recursive: true, force: true });
});

describe('PostgreSQL killed in the middle of a publish', () => {
  it(
    'every result is written exactly once, the report completes, and the audit records reach their receiver once both are back',
    { timeout: 300_000 },
    async () => {
      const created = await invoke(policies.createPolicy, {
        method: 'POST',
        path: '/v1/computational-governance/policies',
        headers: { 'x-request-id': 'req-crash-create' },
        body: {
          name: 'owner is alice',
          resourceType: 'dataproduct',
          environment: 'development',
          severity: 'error',
          engine: 'cue',
          cueScript: 'owner: "alice"',
        },
      });
      expect(created.status).toBe(201);
      const published = await invoke(policies.publishPolicy, {
        method: 'POST',
        path: `/v1/computational-governance/policies/${created.body.id}/publish`,
        params: { id: created.body.id },
        headers: { 'x-request-id': 'req-crash-publish' },
      });
      expect(published.status).toBe(200);
      // Their audit records were tried in the background, refused by the receiver, and wait in the outbox.
      await backgroundDispatchSettled();
      expect(auditReceiver.requests.length).toBeGreaterThan(0);
      const reportId = published.body.evaluationReportId;
      const [message] = lambda.requests.map((request) => request.body);
      expect(message.Records).toHaveLength(1);

      // The worker pages through the perimeter; the resolver holds page 1,500 back while PostgreSQL is killed.
      const reached = new Promise<void>((resolve) => (holding = resolve));
      let release = () => undefined as void;
      hold = new Promise<void>((resolve) => (release = resolve));
      const first = worker.handler(message, context);
      await reached;
      // The pages before it are read ahead of their writes: wait until they are written (a slow machine writes later).
      const watcher = openDatabase(await testSettings(SCHEMA, '', url));
      try {
        await vi.waitFor(
          async () =>
            expect((await watcher.sql.unsafe(`select "offset" from ${SCHEMA}.evaluation_tasks where report_id = $1`, [reportId]))[0].offset).toBe(CRASH_AT),
          { timeout: 60_000, interval: 50 },
        );
      } finally {
        await watcher.close();
      }
      const killedAt = Date.now();
      const processes = await serverProcesses();
      for (const pid of processes) process.kill(pid, 'SIGKILL');
      await vi.waitFor(() => expect(processes.filter(alive)).toEqual([]), { timeout: 30_000 });
      hold = undefined;
      release();
      // The write of the page fails: the worker says the message failed, for the queue to deliver it again.
      const answer = await first;
      expect(answer.batchItemFailures).toEqual([{ itemIdentifier: message.Records[0].messageId }]);

      await start();
      const restartedAt = Date.now();
      const database = openDatabase(await testSettings(SCHEMA, '', url));
      try {
        // SQS delivers the failed message again after its visibility timeout (360 s), longer than the task's
        // lease (120 s), which has run out by then: moved in the database, no sleeping.
        const [{ running }] = await database.sql.unsafe(
          `update ${SCHEMA}.evaluation_tasks set lease_until = now() where report_id = $1 and status = 'running' returning "offset" as running`,
          [reportId],
        );
        expect(running).toBe(CRASH_AT);
        // The queue delivers the message again (its receive count one more); the worker goes on from what was written.
        const again = { Records: [{ ...message.Records[0], attributes: { ...message.Records[0].attributes, ApproximateReceiveCount: '2' } }] };
        expect(await worker.handler(again, context)).toEqual({ batchItemFailures: [] });
        const completedAt = Date.now();

        const [report] = await database.sql.unsafe(`select status, outcome, done, total from ${SCHEMA}.evaluation_reports where id = $1`, [reportId]);
        expect(report).toEqual({ status: 'completed', outcome: 'error', done: RESOURCES, total: RESOURCES });
        const [counts] = await database.sql.unsafe(
          `select count(*)::int as results, count(distinct resource_id)::int as resources, count(*) filter (where outcome = 'error')::int as failing
         from ${SCHEMA}.evaluation_results where report_id = $1`,
          [reportId],
        );
        expect(counts).toEqual({ results: RESOURCES, resources: RESOURCES, failing: resources.filter((r) => r.content.includes('nobody')).length });
        const [{ latest }] = await database.sql.unsafe(`select count(*)::int as latest from ${SCHEMA}.latest_results where entity_id = $1`, [created.body.id]);
        expect(latest).toBe(RESOURCES);

        // The delivery the worker started in the background once the report ended is over (it holds what it claimed until then).
        await backgroundDispatchSettled();
        // The receiver is back, their retries due: each call's record arrives, with the idempotency key it had before the crash.
        auditUp = true;
        await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where delivered_at is null and dead_at is null`);
        const { handler: dispatch } = await import('../../functions/schedules/outbox-dispatcher');
        expect(await dispatch()).toMatchObject({ failed: 0 });
        const keyOf = (requestId: string) => {
          const sent = auditReceiver.requests.filter((request) => request.body.requestId === requestId);
          expect(new Set(sent.map((request) => request.headers['idempotency-key'])).size).toBe(1);
          return sent.at(-1)?.body.idempotencyKey;
        };
        expect(keyOf('req-crash-create')).toMatch(/^[0-9a-f-]{36}$/);
        expect(keyOf('req-crash-publish')).toMatch(/^[0-9a-f-]{36}$/);
        const [{ undelivered }] = await database.sql.unsafe(`select count(*)::int as undelivered from ${SCHEMA}.outbox where delivered_at is null`);
        expect(undelivered).toBe(0);
        process.stdout.write(
          `database crash: killed ${processes.length} PostgreSQL processes at page ${CRASH_AT} of ${RESOURCES}; back ${restartedAt - killedAt} ms later; ` +
            `the redelivered message finished the report ${completedAt - restartedAt} ms after that\n`,
        );
      } finally {
        await database.close();
      }
    },
  );
});
