import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { registerIndexSender } from '#lib/outbox/knowledge-changes';
import { dispatchOutbox, type OutboxDelivery, platformDelivery } from '#lib/outbox/outbox-dispatcher';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import { FakeServer } from '../fakes/fake-server';
import { testDatabase, testSettings } from '../support/database';
import { captureLogs } from '../support/log-capture';

// The outbox's delivery (lib/outbox): idempotency keys, leases, per-topic fairness, dead messages.

const SCHEMA = 'it_outbox';
const AUDIT_PATH = '/api/audit/audit';

/** Answers what each request's path is given, 202 otherwise; a gate holds the audit receiver's answers while closed. */
let audit: 'up' | 'down' = 'up';
let gate: Promise<void> | undefined;
const receiver = new FakeServer<Record<string, unknown>>(async (request) => {
  if (request.path === AUDIT_PATH) {
    if (gate) await gate;
    if (audit === 'down') return { status: 503, body: { error: 'down for maintenance' } };
  }
  return { status: 202 };
});
let database: Database;
let delivery: OutboxDelivery;

const rows = () =>
  database.sql.unsafe<{ id: number; topic: string; attempts: number; delivered: boolean; dead: boolean; lease_ms: number }[]>(
    `select id, topic, attempts, delivered_at is not null as delivered, dead_at is not null as dead,
       (extract(epoch from next_attempt_at - now()) * 1000)::float8 as lease_ms from ${SCHEMA}.outbox order by id`,
  );
const sentTo = (path: string) => receiver.requests.filter((request) => request.path === path);

beforeAll(async () => {
  await receiver.start();
  const overrides = `computational-governance-platform {
    platform-services { base-url = "${receiver.url}", http-secret = "outbox-secret", audit { enabled = true, audit-path = "/api/audit" } }
    notification { enabled = true, url = "${receiver.url}/notify", secret = "notify-secret" }
    outbox.max-attempts = 3
  }`;
  const settings = await testSettings(SCHEMA, overrides);
  database = await testDatabase(SCHEMA, overrides);
  await database.sql.unsafe(`drop schema if exists "${SCHEMA}" cascade`);
  await runStartupTasks(settings);
  registerIndexSender();
  delivery = platformDelivery(settings);
});

beforeEach(async () => {
  receiver.reset();
  audit = 'up';
  gate = undefined;
  await database.sql.unsafe(`delete from ${SCHEMA}.outbox; delete from ${SCHEMA}.knowledge_stale_sources`);
});

afterAll(async () => {
  await database.close();
  await receiver.stop();
});

describe('outbox delivery', () => {
  it('claims messages in the order they are due, whatever order the update finds them in', async () => {
    const outbox = new OutboxRepository(database);
    for (const n of [1, 2, 3, 4]) await outbox.enqueue('notification', { n });
    // Due in the reverse of their ids, the second and the third at the same time (then by id).
    await database.sql.unsafe(
      `update ${SCHEMA}.outbox set next_attempt_at = now() - make_interval(secs => case payload->>'n' when '4' then 40 when '1' then 10 else 20 end)`,
    );
    const claimed = await outbox.claim('notification', 10, 60_000);
    expect(claimed.map((message) => message.payload.n)).toEqual([4, 2, 3, 1]);
  });

  it('a message delivered twice (its lease ran out under a slow receiver, a second dispatcher took it) carries one idempotency key, header and payload', async () => {
    await new OutboxRepository(database).enqueue('audit', { requestId: 'req-twice' });
    let open = () => undefined as void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const first = dispatchOutbox(database, delivery);
    await expect.poll(() => sentTo(AUDIT_PATH).length).toBe(1);

    // The batch is the first dispatcher's for longer than its deliveries can take: 10 x (connect + read) timeouts.
    const [claimed] = await rows();
    expect(claimed.lease_ms).toBeGreaterThan(10 * delivery.deliveryTimeoutMs);

    // As if that lease had run out: a second dispatcher takes and delivers the same message.
    await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now()`);
    const second = dispatchOutbox(database, delivery);
    await expect.poll(() => sentTo(AUDIT_PATH).length).toBe(2);
    open();
    expect(await first).toEqual({ delivered: 1, failed: 0 });
    expect(await second).toEqual({ delivered: 1, failed: 0 });

    const key = sentTo(AUDIT_PATH)[0].headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sentTo(AUDIT_PATH).map((request) => [request.headers['idempotency-key'], request.body.idempotencyKey])).toEqual([
      [key, key],
      [key, key],
    ]);
    expect(sentTo(AUDIT_PATH).map((request) => request.body.requestId)).toEqual(['req-twice', 'req-twice']);
  });

  it('each topic is delivered on its own: an audit receiver that is down does not hold notifications up, and is tried only a few times in a row', async () => {
    const outbox = new OutboxRepository(database);
    for (let i = 0; i < 30; i++) await outbox.enqueue('audit', { requestId: `req-${i}` });
    await outbox.enqueue('notification', { event: 'new-policy', message: 'queued after 30 audit records' });
    audit = 'down';
    expect(await dispatchOutbox(database, delivery)).toEqual({ delivered: 1, failed: 3 });
    expect(sentTo('/notify').map((request) => request.body.message)).toEqual(['queued after 30 audit records']);
    expect(sentTo('/notify')[0].headers['idempotency-key']).toBe(sentTo('/notify')[0].body.idempotencyKey);
    // The rest of the audit batch was given back untried; the three tried wait for their retry.
    const audits = (await rows()).filter((row) => row.topic === 'audit');
    expect(audits.filter((row) => row.attempts === 1)).toHaveLength(3);
    expect(audits.filter((row) => row.attempts === 0 && row.lease_ms <= 0)).toHaveLength(27);
  });

  it('a message that fails outbox.max-attempts times is dead: logged, kept, never claimed again', async () => {
    await new OutboxRepository(database).enqueue('audit', { requestId: 'req-never' });
    audit = 'down';
    const logs = captureLogs('error');
    try {
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect(await dispatchOutbox(database, delivery)).toEqual({ delivered: 0, failed: 1 });
        await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now()`);
      }
    } finally {
      logs.stop();
    }
    expect(await rows()).toEqual([expect.objectContaining({ attempts: 3, delivered: false, dead: true })]);
    expect(logs.lines).toEqual([
      expect.objectContaining({
        topic: 'audit',
        attempts: 3,
        reason: expect.stringContaining('503'),
        msg: 'outbox message given up after 3 attempts (outbox.max-attempts): it stays in the outbox as dead',
      }),
    ]);
    audit = 'up';
    expect(await dispatchOutbox(database, delivery)).toEqual({ delivered: 0, failed: 0 });
    expect(sentTo(AUDIT_PATH)).toHaveLength(3);
    expect(await new OutboxRepository(database).pendingCount()).toBe(0);
  });
});

describe('our own topics, in batches', () => {
  const staleSources = () =>
    database.sql.unsafe<{ source_type: string; source_id: string }[]>(
      `select source_type, source_id from ${SCHEMA}.knowledge_stale_sources order by source_type, source_id`,
    );

  it("the knowledge index's changes of many calls are marked in one transaction, a source named twice once", async () => {
    const outbox = new OutboxRepository(database);
    for (let i = 0; i < 25; i++) await outbox.enqueue('index', { sources: [{ type: 'results', id: `report-${i % 20}` }] });
    await outbox.enqueue('index', {
      sources: [
        { type: 'policy', id: 'p-1' },
        { type: 'environment', id: 'production' },
      ],
    });
    expect(await dispatchOutbox(database, delivery)).toEqual({ delivered: 26, failed: 0 });
    expect(await staleSources()).toHaveLength(22);
    expect(await staleSources()).toContainEqual({ source_type: 'policy', source_id: 'p-1' });
    // Rows a transaction changed carry its id (xmin): one transaction marked every message delivered.
    const transactions = await database.sql.unsafe(`select distinct xmin::text from ${SCHEMA}.outbox where topic = 'index'`);
    expect(transactions).toHaveLength(1);
    expect((await rows()).every((row) => row.delivered && row.attempts === 0)).toBe(true);
  });

  it('a batch that fails stays due, its attempts counted and its retry put off, never dead, and is applied once its receiver works', async () => {
    const outbox = new OutboxRepository(database);
    for (let i = 0; i < 3; i++) await outbox.enqueue('index', { sources: [{ type: 'results', id: `report-${i}` }] });
    await database.sql.unsafe(`alter table ${SCHEMA}.knowledge_stale_sources rename to knowledge_stale_sources_away`);
    const logs = captureLogs('error');
    try {
      for (let attempt = 1; attempt <= 4; attempt++) {
        expect(await dispatchOutbox(database, delivery)).toEqual({ delivered: 0, failed: 1 });
        await database.sql.unsafe(`update ${SCHEMA}.outbox set next_attempt_at = now() where next_attempt_at > now()`);
      }
    } finally {
      logs.stop();
      await database.sql.unsafe(`alter table ${SCHEMA}.knowledge_stale_sources_away rename to knowledge_stale_sources`);
    }
    // outbox.max-attempts (3) is for outside receivers: our own tables are tried until they take it.
    expect(await rows()).toEqual(Array.from({ length: 3 }, () => expect.objectContaining({ topic: 'index', attempts: 4, delivered: false, dead: false })));
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ topic: 'index', messages: 3, msg: 'could not mark the knowledge index stale; the changes stay due and are tried again' }),
    );
    await outbox.failed((await rows())[0].id, 4, 'put off', new Date(Date.now() + 60_000));
    expect(await dispatchOutbox(database, delivery)).toEqual({ delivered: 2, failed: 0 });
    expect(await staleSources()).toHaveLength(2);
  });
});
