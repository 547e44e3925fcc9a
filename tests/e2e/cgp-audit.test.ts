import { readFile, rm, writeFile } from 'node:fs/promises';

import { zipSync } from 'fflate';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { hashOf } from '#lib/audit/audit-chain';
import { unzipPack } from '#lib/governance/evidence/pack-format';

import { cgp, folderWith } from '../support/cgp';
import { governanceApi } from '../support/governance-api';
import { present } from '../support/present';
import { authorized, technicalToken } from '../support/tokens';

// `cgp audit verify` against serverless offline: the audit chain the write calls left in the
// database, recomputed by the command; then one record changed in the database behind its back.
// And `cgp evidence export` then `verify`, through the whole stack.

const TYPE = 'cgp-audit-type';
const sql = postgres(inject('databaseUrl'), { max: 1, onnotice: () => undefined });
let cwd: string;
let env: NodeJS.ProcessEnv;

const verify = (...args: string[]) => cgp(['audit', 'verify', ...args], { cwd, env });
/**
 * Reads the chain through the API once, as `cgp audit verify` does: the records of the calls that
 * answered and wait to be linked (the chainer links them in the background) are linked first.
 */
const linked = async () => {
  const read = await fetch(`${inject('baseUrl')}/v1/computational-governance/audit`, { headers: { authorization: `Bearer ${env.CGP_TOKEN}` } });
  expect(read.status).toBe(200);
  await read.text();
};
/** seq and recordedAt of the stored records, oldest first, once what waits is linked. */
const stored = async () => {
  await linked();
  return sql<Array<{ seq: number; recordedAt: Date }>>`select seq::int as seq, recorded_at as "recordedAt" from e2e.audit_records order by seq`;
};

beforeAll(async () => {
  await governanceApi('POST', '/resource-types', { name: TYPE, resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' } });
  const policy = await governanceApi<{ id: string }>('POST', '/policies', {
    name: 'Audited',
    resourceType: TYPE,
    environment: 'development',
    trigger: 'passive',
  });
  const deleted = await fetch(`${inject('baseUrl')}/v1/computational-governance/policies/${policy.id}`, { method: 'DELETE', headers: await authorized() });
  expect(deleted.status).toBe(204);
  cwd = folderWith({});
  env = { CGP_TOKEN: await technicalToken({ sub: 'cgp-auditor', roles: ['auditor'] }), CGP_SERVER: inject('baseUrl') };
  // The chain's head signed now, as the schedule does every few minutes: the records of the e2e run before this file are covered.
  const signed = await fetch(`${inject('baseUrl')}/v1/computational-governance/audit/checkpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.CGP_TOKEN}` },
  });
  expect(signed.status).toBe(201);
});

afterAll(async () => {
  await sql.end();
  await rm(cwd, { recursive: true, force: true });
});

describe('cgp audit verify', () => {
  it('recomputes the chain the writes left and exits 0, naming how many records and their seq', async () => {
    const records = await stored();
    expect(records.length).toBeGreaterThanOrEqual(3);
    const run = await verify();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^verified ${records.length} records \\(seq ${records[0].seq}\\.\\.${records.at(-1)?.seq}\\) against \\d+ signed checkpoints?\n$`),
    );
  });

  it('--from and --to verify the records of that time, the first one taken as it links', async () => {
    const records = await stored();
    const from = new Date(records[1].recordedAt);
    const to = new Date(present(records.at(-1)).recordedAt);
    const kept = records.filter((record) => new Date(record.recordedAt) >= from && new Date(record.recordedAt) < to);
    const run = await verify('--from', from.toISOString(), '--to', to.toISOString());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^verified ${kept.length} records \\(seq ${kept[0].seq}\\.\\.${kept.at(-1)?.seq}\\) against \\d+ signed checkpoints?\n$`),
    );
  });

  it('exits 1 naming the seq of a record changed in the database, and whether its hash or its link is wrong', async () => {
    const [target] = await sql<Array<{ seq: number; record: string; hash: string }>>`
      select seq::int as seq, record::text as record, hash from e2e.audit_records order by seq offset 1 limit 1`;
    try {
      await sql`update e2e.audit_records set record = jsonb_set(record, '{subject}', '"mallory"') where seq = ${target.seq}`;
      const changed = await verify();
      expect(changed.code).toBe(1);
      expect(changed.stdout).toMatch(new RegExp(`^audit chain broken at seq ${target.seq}: its hash does not match its content`));
      expect(changed.stdout).toContain('"subject":"mallory"');

      // A forger who recomputes the record's hash breaks the link of the next record instead.
      const [altered] = await sql<Array<{ seq: number; recordedAt: Date; record: Record<string, unknown>; previousHash: string }>>`
        select seq::int as seq, recorded_at as "recordedAt", record, previous_hash as "previousHash" from e2e.audit_records where seq = ${target.seq}`;
      await sql`update e2e.audit_records set hash = ${hashOf({ ...altered, recordedAt: altered.recordedAt.toISOString() })} where seq = ${target.seq}`;
      const [next] = await sql<Array<{ seq: number }>>`select seq::int as seq from e2e.audit_records where seq > ${target.seq} order by seq limit 1`;
      const forged = await verify();
      expect(forged.code).toBe(1);
      // (Or at the record itself, when a checkpoint of the schedule signed the chain while it was its head.)
      expect(forged.stdout).toMatch(
        new RegExp(
          `^audit chain broken at seq (${next.seq}: its previousHash does not match the hash of the record before it|${target.seq}: its hash is not the one the checkpoint signed)`,
        ),
      );
    } finally {
      await sql`update e2e.audit_records set record = ${target.record}::jsonb, hash = ${target.hash} where seq = ${target.seq}`;
    }
    expect((await verify()).code).toBe(0);
  });

  it('against a signed checkpoint: a removed tail and a stretch rewritten and re-hashed exit 1 naming the seq', async () => {
    const auditor = { authorization: `Bearer ${env.CGP_TOKEN}` };
    const signed = await fetch(`${inject('baseUrl')}/v1/computational-governance/audit/checkpoints`, { method: 'POST', headers: auditor });
    expect(signed.status).toBe(201);
    const checkpoint = (await signed.json()) as { seq: number; hash: string };
    // The checkpoint call's own record, linked after the head it signed.
    await linked();
    type Row = { seq: number; recordedAt: Date; record: Record<string, unknown>; previousHash: string; hash: string };
    // The whole chain as it is, to put back: the checkpoint call's own record and any later follow the signed head.
    const original = await sql<Row[]>`
      select seq::int as seq, recorded_at as "recordedAt", record, previous_hash as "previousHash", hash from e2e.audit_records order by seq`;
    const tail = present(original.find((row) => row.seq === checkpoint.seq));
    expect(tail.hash).toBe(checkpoint.hash);
    const restore = async () => {
      for (const row of original)
        await sql`insert into e2e.audit_records (seq, recorded_at, record, previous_hash, hash) values (${row.seq}, ${row.recordedAt}, ${sql.json(row.record as never)}, ${row.previousHash}, ${row.hash})
          on conflict (seq) do update set record = excluded.record, previous_hash = excluded.previous_hash, hash = excluded.hash`;
    };
    try {
      await sql`delete from e2e.audit_records where seq >= ${tail.seq}`;
      const truncated = await verify();
      expect(truncated.code).toBe(1);
      expect(truncated.stdout).toMatch(
        new RegExp(`^audit chain broken at seq ${tail.seq}: the chain ends at seq ${tail.seq - 1}, but a checkpoint signed seq \\d+: its tail was removed`),
      );
      await restore();

      // One record changed, and every hash from it to the checkpoint recomputed: the links hold, the checkpoint does not.
      let previousHash = original[1].previousHash;
      for (const row of original.slice(1).filter((candidate) => candidate.seq <= checkpoint.seq)) {
        const record = row.seq === original[1].seq ? { ...row.record, subject: 'mallory' } : row.record;
        const hash = hashOf({ seq: row.seq, recordedAt: row.recordedAt.toISOString(), record, previousHash });
        await sql`update e2e.audit_records set record = ${sql.json(record as never)}, previous_hash = ${previousHash}, hash = ${hash} where seq = ${row.seq}`;
        previousHash = hash;
      }
      const rewritten = await verify();
      expect(rewritten.code).toBe(1);
      expect(rewritten.stdout).toMatch(/^audit chain broken at seq \d+: its hash is not the one the checkpoint signed at .* the chain was rewritten/);
    } finally {
      await restore();
    }
    expect((await verify()).code).toBe(0);
  });

  it('exits 2 for a usage error or a platform that refuses: a bad --from, a caller without audit:read', async () => {
    const bad = await verify('--from', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("option '--from <date-time>' argument 'yesterday' is invalid");
    const reader = await cgp(['audit', 'verify'], { cwd, env: { ...env, CGP_TOKEN: await technicalToken({ sub: 'cgp-reader', roles: ['reader'] }) } });
    expect(reader.code).toBe(2);
    expect(reader.stderr).toMatch(/GET \/audit\/checkpoints\?\S*: 403 .*audit:read/);
  });
});

describe('cgp evidence', () => {
  it('exports a pack of now, built through the queue, that verifies against the platform key; one changed byte exits 1 naming the file', async () => {
    const out = `${cwd}/evidence.zip`;
    const exported = await cgp(['evidence', 'export', '--at', new Date().toISOString(), '--type', TYPE, '--out', out], { cwd, env });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/^wrote evidence pack [0-9a-f-]{36} to .*evidence\.zip/);

    const verified = await cgp(['evidence', 'verify', out, '--server', inject('baseUrl')], { cwd, env });
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^verified evidence pack/);

    const files = unzipPack(await readFile(out));
    const manifest = Buffer.from(files.get('manifest.json') as Uint8Array);
    manifest[manifest.indexOf('"at"') + 1] = 'A'.charCodeAt(0);
    files.set('manifest.json', manifest);
    await writeFile(out, zipSync(Object.fromEntries(files)));
    const changed = await cgp(['evidence', 'verify', out, '--server', inject('baseUrl')], { cwd, env });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('manifest.json');
  });
});
