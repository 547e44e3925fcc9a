import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { linkPendingRecords } from '#lib/audit/audit-chainer';
import type { Database } from '#lib/db/client';
import { OutboxRepository } from '#lib/outbox/outbox-repository';

import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

const SCHEMA = 'it_health_detail';
let database: Database;

beforeAll(async () => {
  await useHandlersOn(SCHEMA);
  database = await testDatabase(SCHEMA);
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
});

/** GET /health with the query, as a caller of these roles (none: without credentials). */
const health = async (query: Record<string, string>, roles?: string[]) => {
  const { getHealth } = await import('../../functions/service/health');
  const headers = { authorization: roles ? `Bearer ${await technicalToken({ sub: 'ops', roles })}` : '' };
  return invoke(getHealth, { method: 'GET', path: '/health', query, headers });
};

describe('GET /health?detail=true', () => {
  it('stays public and cheap without detail', async () => {
    expect(await health({})).toMatchObject({ status: 200, body: { status: 'ok', database: 'ok' } });
    expect((await health({ detail: 'false' })).body).toEqual({ status: 'ok', database: 'ok' });
  });

  it('needs operations:read: 401 without credentials, 403 for a reader', async () => {
    expect((await health({ detail: 'true' })).status).toBe(401);
    const reader = await health({ detail: 'true' }, ['reader']);
    expect(reader.status).toBe(403);
    expect(reader.body.detail).toContain('operations:read');
  });

  it('tells an admin the queue, the outbox and the last cron run, with their ages', async () => {
    await new OutboxRepository(database).enqueue('event', { topic: 'health-detail', payload: {} });
    await database.sql.unsafe(`update "${SCHEMA}".outbox set created_at = now() - interval '2 minutes' where delivered_at is null`);
    const { status, body } = await health({ detail: 'true' }, ['admin']);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'ok',
      database: 'ok',
      detail: {
        queue: { queued: 0, running: 0, oldestQueuedAgeSeconds: null },
        outbox: { pending: 1, oldestAgeSeconds: expect.any(Number) },
        auditChain: { unlinked: 0, oldestUnlinkedAgeSeconds: null, linkWithinSeconds: 120, lagging: false },
        cron: { schedules: 0, lastRunAt: null, lastRunAgeSeconds: null },
      },
    });
    expect(body.detail.outbox.oldestAgeSeconds).toBeGreaterThanOrEqual(120);
  });

  it('says when a record of a call has waited to be linked into the audit chain longer than audit-chain.link-within', async () => {
    const outbox = new OutboxRepository(database);
    // A record held for a call still running is not waiting; one due since three minutes is.
    await outbox.hold([{ topic: 'chain', payload: { requestId: 'req-running' } }], 60_000);
    await outbox.hold([{ topic: 'chain', payload: { requestId: 'req-answered' } }], 0);
    await database.sql.unsafe(`update "${SCHEMA}".outbox set next_attempt_at = now() - interval '3 minutes' where payload->>'requestId' = 'req-answered'`);
    const lagging = (await health({ detail: 'true' }, ['admin'])).body.detail.auditChain;
    expect(lagging).toEqual({ unlinked: 1, oldestUnlinkedAgeSeconds: expect.any(Number), linkWithinSeconds: 120, lagging: true });
    expect(lagging.oldestUnlinkedAgeSeconds).toBeGreaterThanOrEqual(180);

    expect(await linkPendingRecords(database, { wait: true })).toBe(1);
    expect((await health({ detail: 'true' }, ['admin'])).body.detail.auditChain).toMatchObject({ unlinked: 0, lagging: false });
  });
});
