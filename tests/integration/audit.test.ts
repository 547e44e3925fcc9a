import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { Database } from '#lib/db/client';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as resourceTypesModule from '../../functions/governance/resource-types';
import { FakeServer } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { failingCompletion } from '../support/failing-completion';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

const SCHEMA = 'it_audit';
/** What the tests read of an audit record. */
type AuditRecord = { subject: string; status: number; requestId: string; idempotencyKey?: string; type?: string };

const receiver = new FakeServer<AuditRecord>(() => ({ status: 202 }));
let database: Database;
let handlers: typeof resourceTypesModule;

const pending = async () => (await database.sql.unsafe(`select count(*)::int as count from ${SCHEMA}.outbox where delivered_at is null`))[0].count;
const auditRecords = () => receiver.requests.filter((request) => request.path === '/api/audit/audit');

beforeAll(async () => {
  await receiver.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform.platform-services { base-url = "${receiver.url}", http-secret = "audit-secret-1", audit { enabled = true, audit-path = "/api/audit" } }`,
  );
  database = await testDatabase(SCHEMA);
  handlers = await import('../../functions/governance/resource-types');
});

beforeEach(() => {
  receiver.reset();
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await receiver.stop();
});

describe('audit records', () => {
  it('one per user call, with who, what, the outcome and the request id, sent with the http-secret', async () => {
    const response = await invoke(handlers.listResourceTypes, {
      method: 'GET',
      path: '/v1/computational-governance/resource-types',
      headers: { authorization: `Bearer ${await technicalToken({ sub: 'auditor-1' })}`, 'x-request-id': 'req-audit-1' },
    });
    expect(response.status).toBe(200);
    await backgroundDispatchSettled();
    expect(auditRecords()).toHaveLength(1);
    const [sent] = auditRecords();
    expect(sent.method).toBe('POST');
    expect(sent.headers.authorization).toBe('Bearer audit-secret-1');
    expect(sent.body).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      subject: 'auditor-1',
      method: 'GET',
      path: '/v1/computational-governance/resource-types',
      status: 200,
      durationMs: expect.any(Number),
      requestId: 'req-audit-1',
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(sent.headers['idempotency-key']).toBe(sent.body.idempotencyKey);
    expect(await pending()).toBe(0);
  });

  it('also for refused calls, as anonymous with their status', async () => {
    await invoke(handlers.listResourceTypes, { method: 'GET', path: '/v1/computational-governance/resource-types', headers: { authorization: '' } });
    await backgroundDispatchSettled();
    expect(auditRecords().map((request) => [request.body.subject, request.body.status])).toEqual([['anonymous', 401]]);
  });

  it('credentials are checked before the body: no credentials is a 401 whatever the body, and a bad body of a known caller is audited as that caller', async () => {
    const register = (body: string, headers: Record<string, string>) =>
      invoke(handlers.registerResourceType, { method: 'POST', path: '/v1/computational-governance/resource-types', body, headers });
    const anonymous = { authorization: '' };
    expect((await register('{"name": ', anonymous)).status).toBe(401);
    expect((await register('x'.repeat(1_100_000), anonymous)).status).toBe(401);
    expect((await register('{}', { ...anonymous, 'content-type': 'text/plain' })).status).toBe(401);
    const known = { authorization: `Bearer ${await technicalToken({ sub: 'auditor-2' })}` };
    expect((await register('{"name": ', known)).status).toBe(400);
    await backgroundDispatchSettled();
    // Delivered in the background, in no particular order.
    expect(
      auditRecords()
        .map((request) => `${request.body.subject} ${request.body.status}`)
        .sort(),
    ).toEqual(['anonymous 401', 'anonymous 401', 'anonymous 401', 'auditor-2 400']);
  });

  it('never for public endpoints', async () => {
    const { getOpenApiDocument } = await import('../../functions/service/openapi');
    await invoke(getOpenApiDocument, { method: 'GET', path: '/openapi.json' });
    await backgroundDispatchSettled();
    expect(auditRecords()).toHaveLength(0);
  });

  it('receiver down: the call still succeeds, and the record arrives once the receiver is back', async () => {
    receiver.answer({ status: 503 });
    const response = await invoke(handlers.listResourceTypes, {
      method: 'GET',
      path: '/v1/computational-governance/resource-types',
      headers: { 'x-request-id': 'req-while-down' },
    });
    expect(response.status).toBe(200);
    await backgroundDispatchSettled();
    expect(await pending()).toBe(1);
    const [row] = await database.sql.unsafe(`select attempts, last_error from ${SCHEMA}.outbox where delivered_at is null`);
    expect(row.attempts).toBe(1);
    expect(row.last_error).toContain('503');

    // The receiver is back; the scheduled dispatcher runs once the retry is due.
    await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where delivered_at is null`);
    const { handler } = await import('../../functions/schedules/outbox-dispatcher');
    // Its run also signs the audit chain (the first checkpoint is due) and sends that checkpoint to the receiver.
    const [{ head }] = await database.sql.unsafe(`select max(seq)::int as head from ${SCHEMA}.audit_records`);
    expect(await handler()).toEqual({ delivered: 2, failed: 0, checkpoint: head });
    expect(auditRecords().filter((request) => request.body.type === 'audit-checkpoint')).toHaveLength(1);
    // Sent twice: refused with 503 while down, accepted once back; both times with the same idempotency key.
    const sent = auditRecords().filter((request) => request.body.requestId === 'req-while-down');
    expect(sent).toHaveLength(2);
    expect(new Set(sent.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(await pending()).toBe(0);
  });

  it('a write whose database fails after the change, with the receiver down: its record written ahead reaches the receiver once both are back', async () => {
    // Completing the records after the call fails, as a database gone away would.
    const undo = await failingCompletion(database, SCHEMA, 'req-db-gone');
    try {
      const response = await invoke(handlers.registerResourceType, {
        method: 'POST',
        path: '/v1/computational-governance/resource-types',
        body: { name: 'audited-type', resolverConfiguration: { url: receiver.url, path: '/resources' } },
        headers: { authorization: `Bearer ${await technicalToken({ sub: 'writer-1', roles: ['admin'] })}`, 'x-request-id': 'req-db-gone' },
      });
      expect(response.status).toBe(201);
      await backgroundDispatchSettled();
    } finally {
      await undo();
    }
    // Held, not yet sent: nobody completed it.
    expect(auditRecords().filter((request) => request.body.requestId === 'req-db-gone')).toHaveLength(0);

    // The hold is over (moved in the database), the receiver still down; then back.
    const due = () => database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where delivered_at is null`);
    await due();
    const { handler } = await import('../../functions/schedules/outbox-dispatcher');
    receiver.answer({ status: 503 });
    expect(await handler()).toMatchObject({ failed: 1 });
    await due();
    expect(await handler()).toMatchObject({ failed: 0 });
    const sent = auditRecords().filter((request) => request.body.requestId === 'req-db-gone');
    expect(new Set(sent.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(sent.at(-1)?.body).toEqual({
      timestamp: expect.any(String),
      subject: 'writer-1',
      method: 'POST',
      path: '/v1/computational-governance/resource-types',
      requestId: 'req-db-gone',
      outcome: 'unknown',
      idempotencyKey: sent[0].headers['idempotency-key'],
    });
    expect(await pending()).toBe(0);
  });

  it('are not written when audit is disabled', async () => {
    const { OutboxRepository } = await import('#lib/outbox/outbox-repository');
    const before = await new OutboxRepository(database).pendingCount();
    vi.resetModules();
    await useHandlersOn('it_audit_off', `computational-governance-platform.platform-services { base-url = "${receiver.url}", audit.enabled = false }`);
    const off = await import('../../functions/governance/resource-types');
    expect((await invoke(off.listResourceTypes, { method: 'GET', path: '/v1/computational-governance/resource-types' })).status).toBe(200);
    const { backgroundDispatchSettled: settled } = await import('#lib/outbox/background-dispatch');
    await settled();
    const offDatabase = await testDatabase('it_audit_off');
    expect((await offDatabase.sql.unsafe('select count(*)::int as count from it_audit_off.outbox'))[0].count).toBe(0);
    await offDatabase.close();
    expect(auditRecords()).toHaveLength(0);
    expect(before).toBe(0);
    const { closeSharedDatabase } = await import('#lib/db/shared-database');
    await closeSharedDatabase();
  });
});
