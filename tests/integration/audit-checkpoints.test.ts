import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { linkPendingRecords } from '#lib/audit/audit-chainer';
import { checkpointHolds } from '#lib/audit/checkpoint-signature';
import { checkpointWhenDue } from '#lib/audit/checkpoints';
import type { Database } from '#lib/db/client';
import { serviceFrame } from '#lib/http/composition';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as auditModule from '../../functions/governance/audit';
import type * as policiesModule from '../../functions/governance/policies';
import { FakeServer } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

// Signed checkpoints of the audit chain (issue 44, item 3; lib/audit/checkpoints.ts): the head signed
// on demand and on a schedule with a key the database does not hold, kept and copied to the
// platform's audit receiver. `cgp audit verify` holds the chain against them
// (tests/unit/cgp-audit-verify.test.ts, tests/e2e/cgp-audit.test.ts).

const SCHEMA = 'it_audit_checkpoints';
const CHECKPOINTS = '/v1/computational-governance/audit/checkpoints';

const receiver = new FakeServer(() => ({ status: 201, body: {} }));
let database: Database;
let audit: typeof auditModule;
let policies: typeof policiesModule;

const as = async (roles: string[]) => ({ authorization: `Bearer ${await technicalToken({ sub: `checkpoint-${roles.join('-')}`, roles })}` });
const write = async () =>
  invoke(policies.createPolicy, {
    method: 'POST',
    path: '/v1/computational-governance/policies',
    body: { name: `audited ${Math.random()}`, resourceType: 'dataproduct', trigger: 'passive' },
    headers: await as(['admin']),
  });
/** The chain's head once what waits is linked (as a checkpoint links first). */
const head = async () => {
  await linkPendingRecords(database, { wait: true });
  const [newest] = await database.sql.unsafe(`select seq::int as seq, hash from ${SCHEMA}.audit_records order by seq desc limit 1`);
  return { seq: Number(newest.seq), hash: String(newest.hash) };
};
const list = async () => invoke(audit.listAuditCheckpoints, { method: 'GET', path: CHECKPOINTS, headers: await as(['auditor']) });

beforeAll(async () => {
  await receiver.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      platform-services { base-url = "${receiver.url}", http-secret = "checkpoint-secret", audit.enabled = true }
      resource-types = [ { name = "dataproduct", configuration { resource-name = "id" }, resolver-configuration { url = "http://127.0.0.1:9", path = "/r" } } ]
    }`,
  );
  database = await testDatabase(SCHEMA);
  audit = await import('../../functions/governance/audit');
  policies = await import('../../functions/governance/policies');
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await receiver.stop();
});

describe('signed checkpoints of the audit chain', () => {
  it('an empty chain has nothing to sign (409); an auditor signs the head on demand, a reader may not', async () => {
    const empty = await invoke(audit.createAuditCheckpoint, { method: 'POST', path: CHECKPOINTS, headers: await as(['auditor']) });
    expect(empty.status).toBe(409);
    for (let i = 0; i < 3; i++) expect((await write()).status).toBe(201);
    const reader = await invoke(audit.createAuditCheckpoint, { method: 'POST', path: CHECKPOINTS, headers: await as(['reader']) });
    expect(reader.status).toBe(403);
    // The refused call is recorded too: the head is its record.
    const signedHead = await head();
    const signed = await invoke(audit.createAuditCheckpoint, { method: 'POST', path: CHECKPOINTS, headers: await as(['auditor']) });
    expect(signed.status).toBe(201);
    expect(signed.body).toMatchObject({ seq: signedHead.seq, hash: signedHead.hash });

    const page = await list();
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ checkpointIntervalSeconds: 300, meta: { next: null } });
    expect(page.body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(page.body.data.at(-1)).toEqual(signed.body);
    expect(checkpointHolds(signed.body, page.body.publicKey)).toBe(true);
    expect(checkpointHolds({ ...signed.body, seq: signed.body.seq + 1 }, page.body.publicKey)).toBe(false);
  });

  it("is copied to the platform's audit receiver, outside this database", async () => {
    await backgroundDispatchSettled();
    const signed = (await list()).body.data.at(-1);
    const copies = receiver.requests.filter((request) => (request.body as { type?: string })?.type === 'audit-checkpoint');
    expect(copies.map((request) => request.body)).toContainEqual(expect.objectContaining({ type: 'audit-checkpoint', ...signed }));
  });

  it('on the schedule: signed when the newest is older than the interval and the chain grew, not otherwise', async () => {
    const frame = await serviceFrame();
    // Just signed: not due.
    expect(await checkpointWhenDue(frame)).toBeUndefined();
    await database.sql.unsafe(`update ${SCHEMA}.audit_checkpoints set signed_at = signed_at - interval '10 minutes'`);
    // Due, but the chain's head was signed already (the checkpoint call's own record came after it, though).
    const grown = await checkpointWhenDue(frame);
    expect(grown).toMatchObject(await head());
    await database.sql.unsafe(`update ${SCHEMA}.audit_checkpoints set signed_at = signed_at - interval '10 minutes'`);
    expect(await checkpointWhenDue(frame)).toBeUndefined();
    expect((await write()).status).toBe(201);
    expect(await checkpointWhenDue(frame)).toMatchObject(await head());
  });

  it('seq has no gaps: concurrent writes take consecutive numbers from 1', async () => {
    await Promise.all(Array.from({ length: 10 }, () => write()));
    await backgroundDispatchSettled();
    const seqs = (await database.sql.unsafe(`select seq::int as seq from ${SCHEMA}.audit_records order by seq`)).map((row) => row.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  });
});
