import { setTimeout as sleep } from 'node:timers/promises';

import type { SQSEvent } from 'aws-lambda';
import type { Context } from 'aws-lambda';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { checkpointKey } from '#lib/audit/checkpoints';
import type { Database } from '#lib/db/client';
import { PACK_FILES, type PackManifest, unzipPack } from '#lib/governance/evidence/pack-format';
import { verifyPack } from '#lib/governance/evidence/pack-verification';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';
import { loadSettings } from '#lib/settings/index';
import { resetSettings } from '#lib/settings/shared-settings';

import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as evidenceModule from '../../functions/governance/evidence';
import type * as exceptionsModule from '../../functions/governance/exceptions';
import type * as policiesModule from '../../functions/governance/policies';
import type * as sweeperModule from '../../functions/schedules/evaluation-sweeper';
import type * as deadLettersModule from '../../functions/workers/evaluation-dead-letters';
import type * as workerModule from '../../functions/workers/evaluation-worker';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

const SCHEMA = 'it_evidence';
const BASE = '/v1/computational-governance/evidence';
const WORKER = 'cgp-test-evidence-worker';

/** A remote engine: `/strict` fails descriptors without `owner: alice`, `/lenient` passes everything. */
const engine = new FakeServer((request: RecordedRequest<{ content: string }>) => {
  const failing = request.path.startsWith('/strict') && !request.body.content.includes('owner: alice');
  return { status: 200, body: { satisfiesPolicy: !failing, errors: failing ? ['owner must be alice'] : [] } };
});
/** serverless offline's Lambda endpoint, as the local queue uses it: records each invocation of the worker; answers `lambdaStatus`. */
let lambdaStatus = 202;
const lambda = new FakeServer<SQSEvent>(() => ({ status: lambdaStatus }));

let database: Database;
let evidence: typeof evidenceModule;
let policies: typeof policiesModule;
let evaluation: typeof evaluationModule;
let exceptions: typeof exceptionsModule;
let worker: typeof workerModule;
let sweeper: typeof sweeperModule;
let deadLetters: typeof deadLettersModule;

const as = async (subject: string, roles: string[]) => ({ authorization: `Bearer ${await technicalToken({ sub: subject, roles })}` });
const context = { getRemainingTimeInMillis: () => 120_000 } as unknown as Context;

let delivered = 0;
/** Delivers the worker invocations sent so far, as the queue would. */
async function deliverAll() {
  while (delivered < lambda.requests.length) await worker.handler(lambda.requests[delivered++].body, context);
}

const ask = async (body: Record<string, unknown>, headers?: Record<string, string>) =>
  invoke(evidence.createEvidencePack, { method: 'POST', path: BASE, body, headers: headers ?? (await as('ana-auditor', ['auditor'])) });
const status = async (id: string) => (await invoke(evidence.getEvidencePack, { method: 'GET', path: `${BASE}/${id}`, params: { id } })).body;

/** The zip of a completed pack, as its handler answers it (base64), with a Range when given. */
async function download(id: string, range?: string) {
  return invoke(evidence.downloadEvidencePack, {
    method: 'GET',
    path: `${BASE}/${id}/pack`,
    params: { id },
    headers: range ? { range } : {},
  });
}

/** Asks for a pack, delivers its message to the worker, and answers its files once completed. */
async function pack(body: Record<string, unknown>) {
  const asked = await ask(body);
  expect(asked.status).toBe(202);
  await deliverAll();
  const done = await status(asked.body.evidenceId);
  expect(done).toMatchObject({ status: 'completed', error: null });
  const zip = await zipOf(done.evidenceId);
  const files = unzipPack(zip);
  const text = (file: string) => Buffer.from(files.get(file) as Uint8Array).toString('utf8');
  const lines = (file: string) =>
    text(file)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { id: done.evidenceId as string, zip, files, manifest: JSON.parse(text(PACK_FILES.manifest)) as PackManifest, text, lines, summary: done.summary };
}

/** The whole zip, part by part. */
async function zipOf(id: string): Promise<Uint8Array> {
  const response = await download(id);
  expect([200, 206]).toContain(response.status);
  return response.body as Buffer;
}

let resourceType = '';
let types = 0;
async function enabledPolicy(name: string, path: string) {
  const created = await invoke(policies.createPolicy, {
    method: 'POST',
    path: '/v1/computational-governance/policies',
    body: { name, resourceType, severity: 'error', engine: 'remote', remoteEngineUrl: `${engine.url}/${path}` },
  });
  expect(created.status).toBe(201);
  await enable(created.body.id);
  return created.body.id as string;
}
const enable = async (id: string) =>
  expect(
    (
      await invoke(policies.changeStatusOfPolicy, {
        method: 'POST',
        path: `/v1/computational-governance/policies/${id}/status`,
        params: { id },
        body: { status: 'enabled' },
      })
    ).status,
  ).toBe(200);
async function evaluate(resource: string, owner: string) {
  const response = await invoke(evaluation.evaluate, {
    method: 'POST',
    path: '/v1/computational-governance/evaluate',
    body: { environment: 'development', resourceType, descriptor: `id: ${resource}\nowner: ${owner}\n` },
    headers: { prefer: 'wait=20' },
  });
  expect(response.status).toBe(200);
}
/** A moment strictly between what was written before and what is written after. */
async function moment(): Promise<string> {
  await sleep(20);
  const at = new Date().toISOString();
  await sleep(20);
  return at;
}

beforeAll(async () => {
  await engine.start();
  await lambda.start();
  await useHandlersOn(SCHEMA);
  vi.stubEnv('LOCAL_LAMBDA_ENDPOINT', lambda.url);
  vi.stubEnv('EVALUATION_WORKER_FUNCTION', WORKER);
  vi.stubEnv('EVALUATION_QUEUE_MAX_RECEIVES', '2');
  resetSettings();
  database = await testDatabase(SCHEMA);
  evidence = await import('../../functions/governance/evidence');
  policies = await import('../../functions/governance/policies');
  evaluation = await import('../../functions/governance/evaluation');
  exceptions = await import('../../functions/governance/exceptions');
  worker = await import('../../functions/workers/evaluation-worker');
  sweeper = await import('../../functions/schedules/evaluation-sweeper');
  deadLetters = await import('../../functions/workers/evaluation-dead-letters');
});

beforeEach(async () => {
  await backgroundDispatchSettled();
  resourceType = `evidence-type-${++types}`;
  const registered = await invoke((await import('../../functions/governance/resource-types')).registerResourceType, {
    method: 'POST',
    path: '/v1/computational-governance/resource-types',
    body: { name: resourceType, configuration: { resourceName: 'id' }, resolverConfiguration: { url: engine.url, path: '/resources' } },
  });
  expect(registered.status).toBe(201);
  lambda.reset();
  lambdaStatus = 202;
  delivered = 0;
});

afterAll(async () => {
  await releaseHandlers();
  resetSettings();
  await database.close();
  await engine.stop();
  await lambda.stop();
});

describe('an evidence pack of a past moment', () => {
  it('shows the version in force then and its verdicts, after the policy changed; and the change in a pack of now', async () => {
    const id = await enabledPolicy('owner is alice', 'strict');
    await evaluate('dp-1', 'bob');
    await evaluate('dp-2', 'alice');
    const before = await moment();

    // Version 2 replaces it, and judges again.
    const updated = await invoke(policies.updatePolicy, {
      method: 'PUT',
      path: `/v1/computational-governance/policies/${id}`,
      params: { id },
      body: { name: 'owner is alice', resourceType, severity: 'error', engine: 'remote', remoteEngineUrl: `${engine.url}/lenient` },
    });
    expect(updated.status).toBe(201);
    expect(updated.body.version).toBe(2);
    await enable(id);
    await evaluate('dp-1', 'bob');

    const then = await pack({ at: before, resourceTypes: [resourceType] });
    expect(then.manifest).toMatchObject({ format: 'cgp-evidence-pack/1', at: before, requestedBy: 'ana-auditor', scope: { resourceTypes: [resourceType] } });
    expect(then.manifest.policies).toEqual([
      expect.objectContaining({ id, version: 1, status: 'enabled', severity: 'error', resourceType, engine: 'remote', script: `scripts/policy/${id}/v1.json` }),
    ]);
    expect(JSON.parse(then.text(`scripts/policy/${id}/v1.json`))).toEqual({ remoteEngineUrl: `${engine.url}/strict` });
    const verdicts = then.lines(PACK_FILES.verdicts);
    expect(verdicts.map((v) => [v.resourceId, v.version, v.outcome, v.judged])).toEqual([
      ['dp-1', 1, 'error', 'error'],
      ['dp-2', 1, 'ok', 'ok'],
    ]);
    expect(verdicts[0].errors).toEqual(['owner must be alice']);
    expect(JSON.parse(then.text(PACK_FILES.compliance))).toMatchObject({ resources: { total: 2, failing: 1, passing: 1 } });
    expect(then.summary).toMatchObject({ policies: 1, verdicts: 2, resources: 2, failingResources: 1 });

    const now = await pack({ resourceTypes: [resourceType] });
    expect(now.manifest.policies).toEqual([expect.objectContaining({ id, version: 2, status: 'enabled', script: `scripts/policy/${id}/v2.json` })]);
    expect(now.lines(PACK_FILES.verdicts).map((v) => [v.resourceId, v.version, v.outcome])).toEqual([
      ['dp-1', 2, 'ok'],
      ['dp-2', 1, 'ok'],
    ]);
  });

  it('shows an exception active then that expired since, and one deleted since, with who asked', async () => {
    const id = await enabledPolicy('owner is alice', 'strict');
    const create = async (resource: string, expiresInMs: number) =>
      invoke(exceptions.createException, {
        method: 'POST',
        path: '/v1/computational-governance/exceptions',
        body: {
          policyId: id,
          resourceId: resource,
          reason: `waived ${resource}`,
          ticket: 'GOV-1',
          expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
        },
        headers: { authorization: `Bearer ${await technicalToken({ sub: 'governance-lead' })}` },
      });
    const expiring = await create('dp-9', 1_500);
    const removed = await create('dp-8', 86_400_000);
    expect([expiring.status, removed.status]).toEqual([201, 201]);
    const at = await moment();
    expect(
      (
        await invoke(exceptions.deleteException, {
          method: 'DELETE',
          path: `/v1/computational-governance/exceptions/${removed.body.id}`,
          params: { id: removed.body.id },
        })
      ).status,
    ).toBe(204);
    // The first expires meanwhile.
    while (Date.now() < Date.parse(expiring.body.expiresAt) + 10) await sleep(50);

    const then = await pack({ at, resourceTypes: [resourceType] });
    const active = then.lines(PACK_FILES.exceptions);
    expect(active.map((e) => [e.id, e.resourceId, e.createdBy, e.removedAt === null])).toEqual([
      [expiring.body.id, 'dp-9', 'governance-lead', true],
      [removed.body.id, 'dp-8', 'governance-lead', false],
    ]);
    expect(active[0]).toMatchObject({ policyId: id, reason: 'waived dp-9', ticket: 'GOV-1', expiresAt: expiring.body.expiresAt, approval: null });

    const now = await pack({ resourceTypes: [resourceType] });
    expect(now.lines(PACK_FILES.exceptions)).toEqual([]);
  });

  it('carries the audit stretch up to the moment with the checkpoints that prove it, and verifies with the platform key', async () => {
    await enabledPolicy('owner is alice', 'strict');
    await evaluate('dp-1', 'bob');
    const built = await pack({ resourceTypes: [resourceType] });
    const { publicKey } = await checkpointKey(await loadSettings());
    const verdict = verifyPack(built.zip, publicKey);
    expect(verdict).toMatchObject({ verified: true });
    const { audit } = built.manifest;
    expect(audit.fromSeq).toBe(1);
    expect(audit.endCheckpoint?.seq).toBe(audit.toSeq);
    expect(audit.lastSeqAtMoment).toBeGreaterThan(0);
    const records = built.lines(PACK_FILES.auditRecords);
    expect(records.map((record) => record.seq)).toEqual(Array.from({ length: audit.toSeq }, (_, i) => i + 1));
    // The records name the calls that made the history: the policy's status move among them.
    expect(records.map((record) => record.record.operationId)).toContain('changeStatusOfPolicy');
  });
});

describe('asking for a pack', () => {
  it('is the auditors’ and admins’: an author is refused 403 and nothing is stored', async () => {
    const refused = await ask({}, await as('an-author', ['author']));
    expect(refused.status).toBe(403);
    expect(refused.body.permission).toBe('audit:read');
    expect(lambda.requests).toHaveLength(0);
    expect((await ask({}, await as('the-admin', ['admin']))).status).toBe(202);
  });

  it('refuses, naming `at`, a moment in the future or older than the results kept', async () => {
    const future = await ask({ at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future.status).toBe(400);
    expect(future.body.errors).toEqual([{ path: 'at', message: expect.stringContaining('must not be in the future') }]);
    const old = await ask({ at: new Date(Date.now() - 91 * 86_400_000).toISOString() });
    expect(old.status).toBe(400);
    expect(old.body.errors).toEqual([{ path: 'at', message: expect.stringMatching(/older than the history kept: .*retention\.reports = 90 days/) }]);
    const unknown = await ask({ environments: ['nowhere'], resourceTypes: ['no-such-type'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((error: { path: string }) => error.path)).toEqual(['environments.0', 'resourceTypes.0']);
    expect(lambda.requests).toHaveLength(0);
  });

  it('answers the zip by parts for a Range, and 416 for one outside it; 409 before it completed', async () => {
    const asked = await ask({ resourceTypes: [resourceType] });
    const id = asked.body.evidenceId as string;
    expect((await download(id)).status).toBe(409);
    await deliverAll();
    const whole = (await download(id)).body as Buffer;
    const first = await download(id, 'bytes=0-99');
    expect(first.status).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-99/${whole.length}`);
    const rest = await download(id, 'bytes=100-');
    expect(Buffer.concat([first.body as Buffer, rest.body as Buffer])).toEqual(whole);
    expect((await download(id, `bytes=${whole.length}-`)).status).toBe(416);
    expect((await status(id)).sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers a zip of several parts: the first part without a Range, and any range across parts', async () => {
    const { EvidenceRepository, PACK_PART_BYTES } = await import('#lib/governance/evidence/evidence-repository');
    const asked = await ask({ resourceTypes: [resourceType] });
    const id = asked.body.evidenceId as string;
    // A zip of two parts and a bit, as a build writes them (a byte's value is its offset, mod 251).
    const zip = Buffer.from(Array.from({ length: 2 * PACK_PART_BYTES + 10 }, (_, i) => i % 251));
    const packs = new EvidenceRepository(database);
    expect(await packs.claim(id, 60_000)).toMatchObject({ attempts: 1 });
    for (let part = 0; part * PACK_PART_BYTES < zip.length; part++)
      await packs.addPart(id, 1, part, zip.subarray(part * PACK_PART_BYTES, (part + 1) * PACK_PART_BYTES));
    expect(await packs.complete(id, 1, { size: zip.length, sha256: 'of the test', summary: {} })).toBe(true);

    const first = await download(id);
    expect(first.status).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-${PACK_PART_BYTES - 1}/${zip.length}`);
    expect(first.body).toEqual(zip.subarray(0, PACK_PART_BYTES));
    const across = await download(id, `bytes=${PACK_PART_BYTES - 5}-${2 * PACK_PART_BYTES + 3}`);
    expect(across.headers['content-range']).toBe(`bytes ${PACK_PART_BYTES - 5}-${2 * PACK_PART_BYTES - 6}/${zip.length}`);
    expect(across.body).toEqual(zip.subarray(PACK_PART_BYTES - 5, 2 * PACK_PART_BYTES - 5));
    const tail = await download(id, 'bytes=-7');
    expect(tail.body).toEqual(zip.subarray(zip.length - 7));
  });

  it('is sent again by the sweeper when the queue was not reached, and is built once however often it is delivered', async () => {
    lambdaStatus = 503;
    const asked = await ask({ resourceTypes: [resourceType] });
    const id = asked.body.evidenceId as string;
    expect(await status(id)).toMatchObject({ status: 'pending' });
    lambdaStatus = 202;
    lambda.reset();
    await sweeper.handler();
    expect(lambda.requests.map((request) => JSON.parse(request.body.Records[0].body))).toEqual([{ evidenceId: id }]);
    await worker.handler(lambda.requests[0].body, context);
    await worker.handler(lambda.requests[0].body, context);
    expect(await status(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('is sent again by the sweeper when its message reached the queue but no build took it (no redelivery there)', async () => {
    const asked = await ask({ resourceTypes: [resourceType] });
    const id = asked.body.evidenceId as string;
    expect(lambda.requests).toHaveLength(1);
    // The invocation was lost before its build claimed the pack (the local queue redelivers nothing); minutes pass.
    const packs = database.tables.evidencePacks;
    await database.db
      .update(packs)
      .set({ sentAt: sql`now() - interval '10 minutes'` })
      .where(eq(packs.id, id));
    lambda.reset();
    await sweeper.handler();
    expect(lambda.requests.map((request) => JSON.parse(request.body.Records[0].body))).toEqual([{ evidenceId: id }]);
    await deliverAll();
    expect(await status(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('keeps what the build that holds it made: one that outlived its lease stores nothing', async () => {
    const asked = await ask({ resourceTypes: [resourceType] });
    const id = asked.body.evidenceId as string;
    // A build took it (attempt 1) and its worker stopped: its lease ran out, and the message comes again.
    await database.sql.unsafe(`update ${SCHEMA}.evidence_packs set status = 'running', attempts = 1, lease_until = now() - interval '1 second' where id = $1`, [
      id,
    ]);
    await deliverAll();
    expect(await status(id)).toMatchObject({ status: 'completed', attempts: 2 });
    const { EvidenceRepository } = await import('#lib/governance/evidence/evidence-repository');
    const late = new EvidenceRepository(database);
    expect(await late.complete(id, 1, { size: 1, sha256: 'late', summary: {} })).toBe(false);
    expect(await late.attemptFailed(id, 1, 'late', 2)).toBeUndefined();
    expect(await status(id)).toMatchObject({ status: 'completed', attempts: 2, sha256: expect.not.stringMatching('late') });
  });

  it('fails, with the reason, once its message was dead-lettered', async () => {
    const asked = await ask({ resourceTypes: [resourceType] });
    const id = asked.body.evidenceId as string;
    await deadLetters.handler(lambda.requests[0].body);
    expect(await status(id)).toMatchObject({ status: 'failed', error: expect.stringContaining('its build did not end') });
    await deliverAll();
    expect(await status(id)).toMatchObject({ status: 'failed' });
  });
});
