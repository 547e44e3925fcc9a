import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type ChainedRecord, GENESIS_HASH, hashOf } from '#lib/audit/audit-chain';
import { linkPendingRecords } from '#lib/audit/audit-chainer';
import { AuditRepository } from '#lib/audit/audit-repository';
import type { Database } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as auditModule from '../../functions/governance/audit';
import type * as exceptionsModule from '../../functions/governance/exceptions';
import type * as policiesModule from '../../functions/governance/policies';
import { verifyLinks } from '../support/audit-links';
import { testDatabase } from '../support/database';
import { failingCompletion } from '../support/failing-completion';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { captureLogs } from '../support/log-capture';
import { present } from '../support/present';
import { technicalToken } from '../support/tokens';

// The audit chain (lib/audit): every write call in audit_records, each record hashed with the one
// before. platform-services.audit.enabled stays false here: the chain does not depend on it.

const SCHEMA = 'it_audit_chain';
const BASE = '/v1/computational-governance/policies';
const EXCEPTIONS = '/v1/computational-governance/exceptions';
const AUDIT = '/v1/computational-governance/audit';

let database: Database;
let policies: typeof policiesModule;
let exceptions: typeof exceptionsModule;
let audit: typeof auditModule;

const as = async (subject: string, roles = ['admin']) => ({ authorization: `Bearer ${await technicalToken({ sub: subject, roles })}` });
const remotePolicy = (changes: Record<string, unknown> = {}) => ({
  name: 'Owner is set',
  resourceType: 'dataproduct',
  environment: 'development',
  severity: 'error',
  engine: 'remote',
  remoteEngineUrl: 'http://127.0.0.1:9/engine',
  ...changes,
});
const create = async (subject = 'alice', requestId = 'req-create') =>
  invoke(policies.createPolicy, { method: 'POST', path: BASE, body: remotePolicy(), headers: { ...(await as(subject)), 'x-request-id': requestId } });

/** The whole chain as stored, oldest first, once what waits to be linked is (as the chainer does, and a reader of GET /audit). */
const chain = async () => {
  await linkPendingRecords(database, { wait: true });
  return new AuditRepository(database).page({}, 1_000_000);
};
const records = async () => (await chain()).map((link) => link.record);
/** Every record of `links` holds (from mid-chain: the first one's link taken as given). */
const expectUnbroken = (links: ChainedRecord[], fromStart = true) =>
  expect(verifyLinks(links, fromStart)).toEqual({ count: links.length, firstSeq: links[0]?.seq, lastSeq: links.at(-1)?.seq });
const listAudit = async (query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  invoke(audit.listAuditRecords, { method: 'GET', path: AUDIT, query, headers });

beforeAll(async () => {
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/resources" } } ]`,
  );
  database = await testDatabase(SCHEMA);
  policies = await import('../../functions/governance/policies');
  exceptions = await import('../../functions/governance/exceptions');
  audit = await import('../../functions/governance/audit');
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
});

describe('the audit chain records every write', () => {
  it('a create, an update and a delete each append one record naming the subject and the operation; reads append none', async () => {
    const created = await create('alice', 'req-create');
    expect(created.status).toBe(201);
    const { id } = created.body;
    const updated = await invoke(policies.updatePolicy, {
      method: 'PUT',
      path: `${BASE}/${id}`,
      params: { id },
      body: remotePolicy({ description: 'edited' }),
      headers: { ...(await as('bob')), 'x-request-id': 'req-update' },
    });
    expect(updated.status).toBe(200);
    const exception = await invoke(exceptions.createException, {
      method: 'POST',
      path: EXCEPTIONS,
      body: { policyId: id, resourceId: 'dp-1', reason: 'migrating', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      headers: { ...(await as('frank')), 'x-request-id': 'req-exception' },
    });
    expect(exception.status).toBe(201);
    expect((await invoke(policies.getPolicy, { method: 'GET', path: `${BASE}/${id}`, params: { id } })).status).toBe(200);
    expect((await invoke(policies.listPolicy, { method: 'GET', path: BASE })).status).toBe(200);
    expect((await invoke(exceptions.listExceptions, { method: 'GET', path: EXCEPTIONS })).status).toBe(200);
    const exceptionPath = `${EXCEPTIONS}/${exception.body.id}`;
    const deleted = await invoke(exceptions.deleteException, {
      method: 'DELETE',
      path: exceptionPath,
      params: { id: exception.body.id },
      headers: { ...(await as('carol')), 'x-request-id': 'req-delete' },
    });
    expect(deleted.status).toBe(204);

    const links = await chain();
    expect(links.map((link) => link.record)).toEqual([
      {
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        subject: 'alice',
        method: 'POST',
        path: BASE,
        status: 201,
        durationMs: expect.any(Number),
        requestId: 'req-create',
        operationId: 'createPolicy',
      },
      expect.objectContaining({ subject: 'bob', method: 'PUT', path: `${BASE}/${id}`, status: 200, requestId: 'req-update', operationId: 'updatePolicy' }),
      // What the call created, when its answer names it.
      expect.objectContaining({ subject: 'frank', method: 'POST', status: 201, operationId: 'createException', location: exceptionPath }),
      expect.objectContaining({
        subject: 'carol',
        method: 'DELETE',
        path: exceptionPath,
        status: 204,
        requestId: 'req-delete',
        operationId: 'deleteException',
      }),
    ]);
    expect(links[0].previousHash).toBe(GENESIS_HASH);
    expect(links[1].previousHash).toBe(links[0].hash);
    expectUnbroken(links);
  });

  it('a refused write is recorded too, as its caller (anonymous without credentials) with its status', async () => {
    const before = (await chain()).length;
    expect((await invoke(policies.createPolicy, { method: 'POST', path: BASE, body: remotePolicy(), headers: { authorization: '' } })).status).toBe(401);
    const refused = await invoke(policies.createPolicy, {
      method: 'POST',
      path: BASE,
      body: remotePolicy({ resourceType: 'nope' }),
      headers: await as('dave'),
    });
    expect(refused.status).toBe(400);
    expect((await records()).slice(before).map((record) => `${record.subject} ${record.operationId} ${record.status}`)).toEqual([
      'anonymous createPolicy 401',
      'dave createPolicy 400',
    ]);
  });

  it('20 concurrent writes give an unbroken chain: none chains onto a record another already chained onto', async () => {
    const before = (await chain()).length;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => create(`writer-${index}`, `req-concurrent-${index}`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    const links = await chain();
    expect(links).toHaveLength(before + 20);
    expect(new Set(links.map((link) => link.previousHash)).size).toBe(links.length);
    expectUnbroken(links);
    expect(
      links
        .slice(before)
        .map((link) => link.record.requestId)
        .sort(),
    ).toEqual(Array.from({ length: 20 }, (_, index) => `req-concurrent-${index}`).sort());
    // recordedAt never goes back along the chain, so a time range is a run of consecutive records.
    const times = links.map((link) => link.recordedAt);
    expect([...times].sort()).toEqual(times);
  });

  it('the database failing after the change: the call succeeds, the failure is logged, and the record written ahead is appended later', async () => {
    const undo = await failingCompletion(database, SCHEMA, 'req-unrecorded');
    const logs = captureLogs('error');
    try {
      expect((await create('erin', 'req-unrecorded')).status).toBe(201);
    } finally {
      logs.stop();
      await undo();
    }
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        requestId: 'req-unrecorded',
        msg: 'could not complete the audit records of a call; they are delivered as written ahead (outcome unknown)',
      }),
    );
    expect((await records()).map((record) => record.requestId)).not.toContain('req-unrecorded');

    // Its hold is over (moved in the database: no sleeping); the scheduled dispatcher appends it as written ahead.
    await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where delivered_at is null`);
    const { handler } = await import('../../functions/schedules/outbox-dispatcher');
    expect(await handler()).toMatchObject({ failed: 0 });
    const unrecorded = (await records()).filter((record) => record.requestId === 'req-unrecorded');
    expect(unrecorded).toEqual([
      {
        timestamp: expect.any(String),
        subject: 'erin',
        method: 'POST',
        path: BASE,
        requestId: 'req-unrecorded',
        operationId: 'createPolicy',
        outcome: 'unknown',
      },
    ]);
    expectUnbroken(await chain());
  });

  it('an Evaluate that is not one transaction (queued: it answers before its run ends) writes its records ahead of its run', async () => {
    const { evaluate } = await import('../../functions/governance/evaluation');
    const undo = await failingCompletion(database, SCHEMA, 'req-evaluate-ahead');
    try {
      const answer = await invoke(evaluate, {
        method: 'POST',
        path: '/v1/computational-governance/evaluate',
        body: { environment: 'development', resourceType: 'dataproduct', descriptor: '{"id": "dp-ahead"}' },
        headers: { ...(await as('gate')), 'x-request-id': 'req-evaluate-ahead', prefer: 'wait=0' },
      });
      expect(answer.status).toBe(202);
    } finally {
      await undo();
    }
    const [held] = await database.sql.unsafe(
      `select payload, next_attempt_at > now() as held from ${SCHEMA}.outbox where topic = 'chain' and payload->>'requestId' = 'req-evaluate-ahead'`,
    );
    expect(held).toMatchObject({ held: true, payload: expect.objectContaining({ subject: 'gate', operationId: 'evaluate', outcome: 'unknown' }) });
  });

  it('no call waits for the chain: with its table away the call succeeds, and its record waits, due, to be linked with its outcome once it is back', async () => {
    await database.sql.unsafe(`alter table ${SCHEMA}.audit_records rename to audit_records_away`);
    const logs = captureLogs('error');
    try {
      expect((await create('gina', 'req-chain-away')).status).toBe(201);
      await backgroundDispatchSettled();
    } finally {
      logs.stop();
      await database.sql.unsafe(`alter table ${SCHEMA}.audit_records_away rename to audit_records`);
    }
    expect(logs.lines).toContainEqual(expect.objectContaining({ msg: 'could not link audit records to the chain; they stay due and are tried again' }));
    const [waiting] = await database.sql.unsafe(
      `select attempts, last_error, delivered_at from ${SCHEMA}.outbox where topic = 'chain' and payload->>'requestId' = 'req-chain-away'`,
    );
    expect(waiting).toMatchObject({ attempts: 1, last_error: expect.stringContaining('audit_records'), delivered_at: null });
    // Its retry comes after a backoff; a reader of the chain links it at once.
    expect((await records()).filter((record) => record.requestId === 'req-chain-away')).toEqual([
      expect.objectContaining({ subject: 'gina', status: 201, operationId: 'createPolicy' }),
    ]);
    expectUnbroken(await chain());
  });

  it('a write is recorded ahead: when recording it fails, the call fails before it changes anything', async () => {
    await database.sql.unsafe(`alter table ${SCHEMA}.outbox rename to outbox_away`);
    try {
      const before = (await database.sql.unsafe(`select count(*)::int as count from ${SCHEMA}.governance_entities`))[0].count;
      expect((await create('frank', 'req-not-ahead')).status).toBeGreaterThanOrEqual(500);
      expect((await database.sql.unsafe(`select count(*)::int as count from ${SCHEMA}.governance_entities`))[0].count).toBe(before);
    } finally {
      await database.sql.unsafe(`alter table ${SCHEMA}.outbox_away rename to outbox`);
    }
  });
});

describe('GET /audit', () => {
  it('answers the chain as NDJSON, oldest first, each line as stored', async () => {
    const response = await listAudit({}, await as('auditor-1', ['auditor']));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    expect(response.headers.link).toBeUndefined();
    expect(response.body).toEqual(await chain());
    expect(Object.keys(response.body[0])).toEqual(['seq', 'recordedAt', 'record', 'previousHash', 'hash']);
  });

  it('from (inclusive) and to (exclusive) keep the records of that time', async () => {
    const links = await chain();
    const from = links[3].recordedAt;
    const to = links[links.length - 5].recordedAt;
    const response = await listAudit({ from, to });
    expect(response.status).toBe(200);
    const expected = links.filter((link) => link.recordedAt >= from && link.recordedAt < to);
    expect(expected.length).toBeGreaterThan(0);
    expect(response.body).toEqual(expected);
    // From mid-chain, the first record's link is taken as given; the rest still hold.
    expectUnbroken(response.body, false);
    expect((await listAudit({ from: links[0].recordedAt.replace('Z', '+00:00') })).body).toEqual(links);
  });

  it('a bad from or to is a 400 naming it', async () => {
    const bad = await listAudit({ from: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toBe('application/problem+json');
    expect(bad.body.errors).toEqual([{ path: 'query.from', message: expect.stringContaining('from must be a date and time') }]);
    const backwards = await listAudit({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' });
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors).toEqual([{ path: 'query.to', message: 'to must be later than from' }]);
  });

  it('needs audit:read everywhere: a reader gets 403, an auditor 200', async () => {
    const reader = await listAudit({}, await as('reader-1', ['reader']));
    expect(reader.status).toBe(403);
    expect(reader.body.detail).toContain('audit:read');
    expect((await listAudit({}, await as('auditor-2', ['auditor']))).status).toBe(200);
  });

  it('an answer over 4 MB is cut, and its Link header names the rest, read in pages of the table', async () => {
    const [{ last }] = await database.sql.unsafe(`select max(seq)::int as last from ${SCHEMA}.audit_records`);
    // 2,500 records of ~2 KB (the chain is not the point here): more than one table page, more than one answer.
    await database.sql.unsafe(
      `insert into ${SCHEMA}.audit_records (seq, recorded_at, record, previous_hash, hash)
       select $1::int + n, now(), jsonb_build_object('pad', repeat('x', 2000), 'n', n), 'p', 'h' from generate_series(1, 2500) n`,
      [last],
    );
    try {
      const first = await listAudit({ from: '2020-01-01T00:00:00Z' });
      expect(first.status).toBe(200);
      const link = present(/^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))?.[1], 'the Link header');
      const next = new URL(link, 'http://localhost');
      expect(next.pathname).toBe(AUDIT);
      expect(next.searchParams.get('from')).toBe('2020-01-01T00:00:00.000Z');
      expect(Number(next.searchParams.get('after'))).toBe(first.body.at(-1).seq);
      const size = first.body.reduce((bytes: number, line: unknown) => bytes + Buffer.byteLength(`${JSON.stringify(line)}\n`), 0);
      expect(size).toBeLessThanOrEqual(4 * 1024 * 1024);
      expect(first.body.length).toBeGreaterThan(1000);
      const rest = await listAudit(Object.fromEntries(next.searchParams));
      expect(rest.headers.link).toBeUndefined();
      const seqs = [...first.body, ...rest.body].map((line: ChainedRecord) => line.seq);
      expect(seqs).toEqual((await chain()).map((line) => line.seq));
    } finally {
      await database.sql.unsafe(`delete from ${SCHEMA}.audit_records where seq > $1`, [last]);
    }
  });
});

describe('the chain proves itself', () => {
  it('verifies as stored; a changed record is named by its seq; a forger who also rehashes it breaks the link of the next', async () => {
    const links = await chain();
    expectUnbroken(links);
    const target = links[4];
    const after = links[5];
    try {
      await database.sql.unsafe(`update ${SCHEMA}.audit_records set record = jsonb_set(record, '{subject}', '"mallory"') where seq = $1`, [target.seq]);
      expect(verifyLinks(await chain())).toEqual({ seq: target.seq, hashWrong: true, linkWrong: false, expectedPreviousHash: target.previousHash });

      const forged = { ...target, record: { ...target.record, subject: 'mallory' } };
      await database.sql.unsafe(`update ${SCHEMA}.audit_records set hash = $2 where seq = $1`, [target.seq, hashOf(forged)]);
      expect(verifyLinks(await chain())).toEqual({ seq: after.seq, hashWrong: false, linkWrong: true, expectedPreviousHash: hashOf(forged) });
    } finally {
      await database.sql.unsafe(`update ${SCHEMA}.audit_records set record = $2::jsonb, hash = $3 where seq = $1`, [
        target.seq,
        JSON.stringify(target.record),
        target.hash,
      ]);
    }
    expectUnbroken(await chain());
  });

  it('a record removed from the chain breaks the link of the one after it; the first record links to 64 zeros', async () => {
    const links = await chain();
    expect(verifyLinks(links.filter((_, index) => index !== 2))).toMatchObject({ seq: links[3].seq, linkWrong: true });
    expect(verifyLinks(links.slice(1))).toMatchObject({ seq: links[1].seq, linkWrong: true, expectedPreviousHash: GENESIS_HASH });
    expectUnbroken(links.slice(1), false);
  });
});
