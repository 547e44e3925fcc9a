import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { strFromU8, strToU8, zipSync } from 'fflate';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { type ChainedRecord, GENESIS_HASH, hashOf } from '#lib/audit/audit-chain';
import { type Checkpoint, keyIdOf, publicKeyPem, signCheckpoint, signingKeyOf } from '#lib/audit/checkpoint-signature';
import { evidenceExportText, exportEvidence, verifyEvidence } from '#lib/cli/evidence-command';
import { main } from '#lib/cli/main';
import {
  jsonFile,
  ndjson,
  PACK_FILES,
  PACK_FORMAT,
  type PackAuditStretch,
  type PackManifest,
  type PackSignature,
  sha256,
  signHashes,
  unzipPack,
} from '#lib/governance/evidence/pack-format';
import { packVerdictText, verifyPack } from '#lib/governance/evidence/pack-verification';

import { FakeServer } from '../fakes/fake-server';

// `cgp evidence verify` and `export` on synthetic packs made with the pack format's own functions, a real
// audit chain and real Ed25519 keys (the builder's packs: tests/integration; the spec: docs/evidence.md).

type Signer = ReturnType<typeof signingKeyOf>;
type Files = Map<string, Uint8Array>;

const key = signingKeyOf(randomBytes(32));
const trusted = publicKeyPem(key.publicKey);
const other = signingKeyOf(randomBytes(32));
const EVIDENCE_ID = '7c1e0a52-3f4b-4c1d-9e2a-0b1c2d3e4f50';
const POLICY_ID = '0b7c9d1e-2f3a-4b5c-8d6e-7f8091a2b3c4';
const SCRIPT = `scripts/policy/${POLICY_ID}/v2.cue`;
const BUILT = new Date('2026-10-01T00:05:00Z');

/** An audit chain of `count` records (seq 1..count), each hashed with the one before from GENESIS_HASH. */
function chainOf(count: number): ChainedRecord[] {
  const records: ChainedRecord[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const link = {
      seq,
      recordedAt: `2026-09-30T0${seq}:00:00.000Z`,
      record: { subject: `user-${seq}`, method: 'POST', path: '/v1/computational-governance/policies', status: 201 },
      previousHash: records.at(-1)?.hash ?? GENESIS_HASH,
    };
    records.push({ ...link, hash: hashOf(link) });
  }
  return records;
}

const chain = chainOf(6);
const checkpointOf = (seq: number, signer: Signer = key): Checkpoint => signCheckpoint(chain[seq - 1], new Date(`2026-09-30T0${seq}:30:00.000Z`), signer);
const checkpoints = [checkpointOf(2), checkpointOf(4), checkpointOf(6)];
/** The stretch seq 3..6: from the checkpoint of seq 2 to that of seq 6; the pack's moment falls after seq 5. */
const STRETCH: PackAuditStretch = { fromSeq: 3, toSeq: 6, lastSeqAtMoment: 5, startCheckpoint: checkpoints[0], endCheckpoint: checkpoints[2] };
const SCRIPT_TEXT = 'owner: email: =~"@"\n';

function manifestOf(audit: PackAuditStretch): PackManifest {
  return {
    format: PACK_FORMAT,
    evidenceId: EVIDENCE_ID,
    at: '2026-09-30T05:30:00.000Z',
    requestedBy: 'auditor',
    requestedAt: '2026-10-01T00:00:00.000Z',
    builtAt: BUILT.toISOString(),
    scope: { environments: ['production'], resourceTypes: null },
    platform: { name: 'computational-governance', version: '1.0.0' },
    policies: [
      {
        id: POLICY_ID,
        kind: 'policy',
        name: 'Data products have an owner',
        version: 2,
        status: 'enabled',
        severity: 'error',
        environment: null,
        resourceType: 'dataproduct',
        engine: 'cue',
        since: '2026-09-01T00:00:00.000Z',
        changedBy: 'gov',
        script: SCRIPT,
        scriptSha256: sha256(strToU8(SCRIPT_TEXT)),
      },
    ],
    counts: { policies: 1, verdicts: 2, resources: 2, failingResources: 1, exceptions: 1, approvals: 1, auditRecords: 4 },
    audit,
  };
}

/** The files of a pack (all but signature.json) with the audit stretch `audit` of `records` and `signed` checkpoints. */
function filesOf(audit: PackAuditStretch = STRETCH, records = chain.slice(2), signed = checkpoints): Files {
  const verdict = (resourceId: string, outcome: string) => ({
    environment: 'production',
    resourceType: 'dataproduct',
    resourceId,
    resourceDisplayName: resourceId,
    resourceOwner: 'team-a',
    policyId: POLICY_ID,
    kind: 'policy',
    version: 2,
    outcome,
    judged: outcome,
    errors: outcome === 'ok' ? [] : ['owner.email: invalid value'],
    value: null,
    evaluatedAt: '2026-09-30T04:00:00.000Z',
    reportId: '5d6e7f80-91a2-4b3c-8d4e-5f6071829304',
  });
  return new Map([
    [PACK_FILES.manifest, jsonFile(manifestOf(audit))],
    [SCRIPT, strToU8(SCRIPT_TEXT)],
    [PACK_FILES.verdicts, ndjson([verdict('urn:dp:sales', 'ok'), verdict('urn:dp:orders', 'error')])],
    [PACK_FILES.exceptions, ndjson([{ policyId: POLICY_ID, resourceId: 'urn:dp:orders', reason: 'migrating', approvedBy: 'lead' }])],
    [PACK_FILES.approvals, ndjson([{ kind: 'publish', policyId: POLICY_ID, version: 2, requestedBy: 'ana', decidedBy: 'lead', comment: 'ok' }])],
    [PACK_FILES.compliance, jsonFile({ compliant: 1, failing: 1 })],
    [PACK_FILES.auditRecords, ndjson(records)],
    [PACK_FILES.auditCheckpoints, ndjson(signed)],
  ]);
}

/** The zip of `files`, signed by `signer`. */
/** The signature of `files` (every file of the pack but signature.json), as the builder makes it. */
const signPack = (evidenceId: string, files: ReadonlyMap<string, Uint8Array>, signer: Signer, signedAt: Date) =>
  signHashes(evidenceId, Object.fromEntries([...files].map(([file, bytes]) => [file, sha256(bytes)])), signer, signedAt);

/** The zip of `files` and `signature`, every entry dated `date`. */
const zipPack = (files: ReadonlyMap<string, Uint8Array>, signature: PackSignature, date: Date) =>
  zipSync(Object.fromEntries([...files, [PACK_FILES.signature, jsonFile(signature)]]), { level: 6, mtime: date });

const packOf = (files: Files, signer: Signer = key) => zipPack(files, signPack(EVIDENCE_ID, files, signer, BUILT), BUILT);
const pack = packOf(filesOf());

/** The pack's files changed by `change`, zipped again with the same signature.json (as one without the key could). */
function tampered(bytes: Uint8Array, change: (files: Files) => void): Uint8Array {
  const files = unzipPack(bytes);
  const signature = JSON.parse(strFromU8(files.get(PACK_FILES.signature) as Uint8Array)) as PackSignature;
  files.delete(PACK_FILES.signature);
  change(files);
  return zipPack(files, signature, BUILT);
}

/** `bytes` with one byte changed: the first letter of the first `marker`. */
function oneByteChanged(bytes: Uint8Array, marker: string): Uint8Array {
  const at = strFromU8(bytes).indexOf(marker);
  expect(at).toBeGreaterThanOrEqual(0);
  const changed = Uint8Array.from(bytes);
  changed[at] ^= 1;
  return changed;
}

/** The records of the stretch without the seq in `removed`. */
const recordsWithout = (...removed: number[]) => chain.slice(2).filter((record) => !removed.includes(record.seq));

describe('verifyPack', () => {
  it('verifies an untouched pack, and says what it verified', () => {
    const verdict = verifyPack(pack, trusted);
    expect(verdict).toMatchObject({ verified: true, files: 8, keyId: keyIdOf(key.publicKey), audit: { fromSeq: 3, toSeq: 6, checkpoints: 3 } });
    expect(packVerdictText(verdict)).toBe(
      `verified evidence pack ${EVIDENCE_ID} of 2026-09-30T05:30:00.000Z, signed with the trusted key ${keyIdOf(key.publicKey)}\n` +
        '8 files: 1 policies, 2 verdicts, 1 exceptions, 1 approvals\n' +
        'audit records seq 3..6 against 3 signed checkpoints\n',
    );
  });

  it('verifies a stretch from the start of the chain, and an empty chain', () => {
    const fromStart = { fromSeq: 1, toSeq: 4, lastSeqAtMoment: 4, startCheckpoint: null, endCheckpoint: checkpoints[1] };
    expect(verifyPack(packOf(filesOf(fromStart, chain.slice(0, 4))), trusted)).toMatchObject({ verified: true, audit: { fromSeq: 1, toSeq: 4 } });
    const empty = { fromSeq: 0, toSeq: 0, lastSeqAtMoment: 0, startCheckpoint: null, endCheckpoint: null };
    const verdict = verifyPack(packOf(filesOf(empty, [], [])), trusted);
    expect(verdict).toMatchObject({ verified: true, audit: { fromSeq: 0, toSeq: 0, checkpoints: 0 } });
    expect(packVerdictText(verdict)).toMatch(/\nthe audit chain had no record\n$/);
  });

  it.each([
    [PACK_FILES.verdicts, 'error"'],
    [SCRIPT, 'owner'],
    [PACK_FILES.manifest, 'auditor'],
    [PACK_FILES.auditRecords, 'user-4'],
    [PACK_FILES.auditCheckpoints, 'signedAt'],
    [PACK_FILES.exceptions, 'migrating'],
    [PACK_FILES.approvals, 'lead'],
    [PACK_FILES.compliance, 'compliant'],
  ])('fails on one byte changed in %s, naming it', (file, marker) => {
    const changed = tampered(pack, (files) => files.set(file, oneByteChanged(files.get(file) as Uint8Array, marker)));
    const verdict = verifyPack(changed, trusted);
    expect(verdict).toMatchObject({ verified: false });
    expect(packVerdictText(verdict)).toMatch(new RegExp(`^evidence pack not verified: ${file} was changed: its SHA-256 is [0-9a-f]{64}, the signed one`));
  });

  it('fails on a file removed, and on a file added', () => {
    expect(
      verifyPack(
        tampered(pack, (files) => files.delete(PACK_FILES.exceptions)),
        trusted,
      ),
    ).toEqual({
      verified: false,
      reason: 'exceptions.ndjson is missing: signature.json lists it (a file was removed)',
    });
    expect(
      verifyPack(
        tampered(pack, (files) => files.set('scripts/policy/extra.cue', strToU8('x: 1\n'))),
        trusted,
      ),
    ).toEqual({
      verified: false,
      reason: 'scripts/policy/extra.cue is not in signature.json: it was added to the pack',
    });
  });

  it('fails on bytes that are not a zip, and on a zip that is not a pack; throws on a trusted key that is not one', () => {
    expect(verifyPack(strToU8('not a zip at all'), trusted)).toEqual({ verified: false, reason: 'not a zip' });
    expect(verifyPack(pack.slice(0, 100), trusted)).toEqual({ verified: false, reason: 'not a zip' });
    expect(() => verifyPack(pack, 'not a key')).toThrow('the trusted key is not a public key (PEM)');
    const unsigned = unzipPack(pack);
    unsigned.delete(PACK_FILES.signature);
    expect(verifyPack(zipSync(Object.fromEntries(unsigned)), trusted)).toEqual({ verified: false, reason: 'signature.json is missing' });
    expect(verifyPack(zipPack(unsigned, { ...signPack(EVIDENCE_ID, unsigned, key, BUILT), files: [] } as unknown as PackSignature, BUILT), trusted)).toEqual({
      verified: false,
      reason: 'signature.json is not a pack signature: files: Invalid input: expected record, received array',
    });
    const otherFormat = filesOf();
    otherFormat.set(PACK_FILES.manifest, jsonFile({ ...manifestOf(STRETCH), format: 'cgp-evidence-pack/2' }));
    expect(verifyPack(packOf(otherFormat), trusted)).toEqual({
      verified: false,
      reason: 'manifest.json is not a pack manifest: format: it is of format "cgp-evidence-pack/2", not cgp-evidence-pack/1',
    });
  });

  it("fails on a signed manifest whose counts are not the files': a verdict line removed, re-signed with the trusted key", () => {
    const files = filesOf();
    const verdicts = Buffer.from(files.get(PACK_FILES.verdicts) as Uint8Array)
      .toString('utf8')
      .split('\n');
    files.set(PACK_FILES.verdicts, Buffer.from(`${verdicts.slice(1).join('\n')}`));
    const verdict = verifyPack(packOf(files), trusted);
    expect(verdict).toEqual({ verified: false, reason: 'manifest.json counts 2 verdicts, the pack holds 1' });
  });

  it('fails on a pack re-signed with another key, though its signature holds for that key', () => {
    const changed = filesOf();
    changed.set(PACK_FILES.verdicts, ndjson([]));
    expect(verifyPack(packOf(changed, other), trusted)).toEqual({
      verified: false,
      reason: `signed with key ${keyIdOf(other.publicKey)}, not the trusted key ${keyIdOf(key.publicKey)}`,
    });
    // The same pack with the trusted key's public half written in: the signature does not hold.
    const files = unzipPack(packOf(changed, other));
    const signature = JSON.parse(strFromU8(files.get(PACK_FILES.signature) as Uint8Array)) as PackSignature;
    files.delete(PACK_FILES.signature);
    const lying = zipPack(files, { ...signature, publicKey: trusted, keyId: keyIdOf(key.publicKey) }, BUILT);
    expect(verifyPack(lying, trusted)).toMatchObject({ verified: false, reason: expect.stringMatching(/^the signature of signature.json does not verify/) });
  });

  it('fails on a stretch cut short or with a record removed, even when the whole pack was signed again with the trusted key', () => {
    const cut = verifyPack(packOf(filesOf(STRETCH, recordsWithout(5, 6))), trusted);
    expect(cut).toEqual({
      verified: false,
      reason: 'audit stretch: records 5..6 are missing from audit/records.ndjson: it ends at seq 4, toSeq is 6 (cut short)',
    });
    expect(verifyPack(packOf(filesOf(STRETCH, recordsWithout(4))), trusted)).toEqual({
      verified: false,
      reason: 'audit stretch: records 4..4 are missing from audit/records.ndjson (seq runs from fromSeq 3 without a gap)',
    });
    // The manifest cut to match: its end checkpoint signed seq 6, not 5.
    expect(verifyPack(packOf(filesOf({ ...STRETCH, toSeq: 5 }, recordsWithout(6))), trusted)).toEqual({
      verified: false,
      reason: 'audit stretch: its end checkpoint signed seq 6, not toSeq 5',
    });
  });

  it('fails on a record changed or a chain rewritten and re-hashed, even when the pack was signed again', () => {
    const changed = chain.slice(2).map((record) => (record.seq === 4 ? { ...record, record: { ...record.record, subject: 'mallory' } } : record));
    expect(verifyPack(packOf(filesOf(STRETCH, changed)), trusted)).toEqual({
      verified: false,
      reason: 'audit stretch: audit/records.ndjson, seq 4: its hash does not match its content (the record or its hash was changed)',
    });
    const rewritten: ChainedRecord[] = [];
    for (const record of chain.slice(2)) {
      const link = { ...record, record: record.seq === 4 ? { subject: 'mallory' } : record.record, previousHash: rewritten.at(-1)?.hash ?? chain[1].hash };
      rewritten.push({ ...link, hash: hashOf(link) });
    }
    expect(verifyPack(packOf(filesOf(STRETCH, rewritten)), trusted)).toMatchObject({
      verified: false,
      reason: expect.stringMatching(/^audit stretch: audit\/records.ndjson, seq 4: its hash is not the one the checkpoint signed at .* holds/),
    });
  });

  it('fails on a forged checkpoint, and on start or end checkpoints that are not among the signed ones', () => {
    const forged = [checkpoints[0], checkpointOf(4, other), checkpoints[2]];
    expect(verifyPack(packOf(filesOf(STRETCH, chain.slice(2), forged)), trusted)).toEqual({
      verified: false,
      reason:
        'audit stretch: audit/checkpoints.ndjson line 2: the checkpoint of seq 4 signed at 2026-09-30T04:30:00.000Z ' +
        'does not verify with the trusted key (forged or changed)',
    });
    const changedHash = [checkpoints[0], checkpoints[1], { ...checkpoints[2], hash: chain[4].hash }];
    expect(verifyPack(packOf(filesOf({ ...STRETCH, endCheckpoint: changedHash[2] }, chain.slice(2), changedHash)), trusted)).toMatchObject({
      verified: false,
      reason: expect.stringMatching(/^audit stretch: audit\/checkpoints.ndjson line 3: the checkpoint of seq 6 .* does not verify/),
    });
    expect(verifyPack(packOf(filesOf(STRETCH, chain.slice(2), checkpoints.slice(1))), trusted)).toEqual({
      verified: false,
      reason: "audit stretch: the manifest's startCheckpoint (seq 2) is not one of the checkpoints of audit/checkpoints.ndjson",
    });
  });

  it('fails on a stretch whose bounds do not meet its checkpoints', () => {
    const verdictOf = (audit: PackAuditStretch, records = chain.slice(2)) => verifyPack(packOf(filesOf(audit, records)), trusted);
    expect(verdictOf({ ...STRETCH, startCheckpoint: checkpoints[1] })).toEqual({
      verified: false,
      reason: 'audit stretch: its start checkpoint signed seq 4, not seq 2, the one before fromSeq 3',
    });
    expect(verdictOf({ ...STRETCH, startCheckpoint: null })).toEqual({
      verified: false,
      reason: 'audit stretch: it starts at fromSeq 3 without a start checkpoint (only a stretch from seq 1 may)',
    });
    expect(verdictOf({ ...STRETCH, lastSeqAtMoment: 7 })).toEqual({ verified: false, reason: 'audit stretch: lastSeqAtMoment 7 is not within 2..6' });
    expect(verdictOf({ ...STRETCH, fromSeq: 0, toSeq: 0 })).toMatchObject({
      verified: false,
      reason: expect.stringMatching(/^audit stretch: fromSeq 0 is an empty chain/),
    });
  });

  it('fails on a signed manifest whose lastSeqAtMoment is not where its moment falls in the records', () => {
    const verdictOf = (lastSeqAtMoment: number) => verifyPack(packOf(filesOf({ ...STRETCH, lastSeqAtMoment })), trusted);
    // The moment is 05:30: seq 5 was recorded at 05:00, seq 6 at 06:00.
    expect(verdictOf(6)).toEqual({
      verified: false,
      reason: `audit stretch: lastSeqAtMoment 6 was recorded at 2026-09-30T06:00:00.000Z, after the pack's moment 2026-09-30T05:30:00.000Z`,
    });
    for (const [lastSeqAtMoment, next] of [
      [4, 5],
      [2, 3],
    ]) {
      expect(verdictOf(lastSeqAtMoment)).toEqual({
        verified: false,
        reason:
          `audit stretch: seq ${next}, after lastSeqAtMoment ${lastSeqAtMoment}, ` +
          `was recorded at 2026-09-30T0${next}:00:00.000Z, not after the pack's moment`,
      });
    }
  });

  it('fails on a zip holding two files of one name, or a file its reader would drop, naming it', () => {
    const renamed = (bytes: Uint8Array, from: string, to: string) => {
      expect(from).toHaveLength(to.length);
      const changed = Buffer.from(bytes);
      for (let at = changed.indexOf(from); at >= 0; at = changed.indexOf(from)) changed.write(to, at);
      return changed;
    };
    // A second verdicts.ndjson, with a line added, after the signed one.
    const twice = tampered(pack, (files) => files.set('verdicts.ndjsoX', ndjson([{ resourceId: 'urn:dp:forged', outcome: 'ok' }])));
    expect(verifyPack(renamed(twice, 'verdicts.ndjsoX', PACK_FILES.verdicts), trusted)).toEqual({
      verified: false,
      reason: 'the zip holds two files named verdicts.ndjson (one would hide the other)',
    });
    // A file named __proto__, which a plain object of files has no room for; a directory entry with content.
    const added = (name: string) => {
      const placeholder = 'X'.repeat(name.length);
      return verifyPack(
        renamed(
          tampered(pack, (files) => files.set(placeholder, strToU8('added'))),
          placeholder,
          name,
        ),
        trusted,
      );
    };
    expect(added('__proto__')).toEqual({ verified: false, reason: 'the zip holds a file named __proto__, which cannot be read as one' });
    expect(added('scripts/x/')).toEqual({ verified: false, reason: 'scripts/x/ is not in signature.json: it was added to the pack' });
  });
});

describe('cgp evidence verify', () => {
  let folder: string;
  let packFile: string;
  let keyFile: string;
  let stdout: string;
  let stderr: string;
  const platform = new FakeServer();

  /** Captures what a stream is written, calling back as a stream does (cgp's `print` waits for it). */
  const capture = (stream: NodeJS.WriteStream, into: (text: string) => void) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
      into(String(chunk));
      (rest.find((argument) => typeof argument === 'function') as (() => void) | undefined)?.();
      return true;
    });

  /** Runs `cgp` in this process; its exit code. */
  async function cgp(...args: string[]): Promise<number | undefined> {
    process.exitCode = undefined;
    await main(args);
    return process.exitCode as number | undefined;
  }

  beforeAll(async () => {
    await platform.start();
    folder = await mkdtemp(path.join(tmpdir(), 'cgp-evidence-'));
    packFile = path.join(folder, 'pack.zip');
    keyFile = path.join(folder, 'audit-key.pem');
    await writeFile(keyFile, trusted);
  });
  beforeEach(() => {
    platform.reset();
    stdout = '';
    stderr = '';
    capture(process.stdout, (text) => (stdout += text));
    capture(process.stderr, (text) => (stderr += text));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });
  afterAll(async () => {
    await platform.stop();
    await rm(folder, { recursive: true, force: true });
  });

  it('exit 0 verified, with the key of a file; 1 not verified, the reason printed', async () => {
    await writeFile(packFile, pack);
    expect(await cgp('evidence', 'verify', packFile, '--public-key', keyFile)).toBe(0);
    expect(stdout).toBe(packVerdictText(verifyPack(pack, trusted)));
    stdout = '';
    await writeFile(packFile, packOf(filesOf(STRETCH, recordsWithout(6))));
    expect(await cgp('evidence', 'verify', packFile, '--public-key', keyFile)).toBe(1);
    expect(stdout).toBe(
      'evidence pack not verified: audit stretch: records 6..6 are missing from audit/records.ndjson: it ends at seq 5, toSeq is 6 (cut short)\n',
    );
  });

  it('takes the key from the platform of --server', async () => {
    await writeFile(packFile, pack);
    platform.answer({
      status: 200,
      body: { publicKey: trusted, keyId: keyIdOf(key.publicKey), checkpointIntervalSeconds: 60, data: [checkpoints[0]], meta: { next: 2 } },
    });
    expect(await cgp('evidence', 'verify', packFile, '--server', platform.url, '--token', 'auditor-token')).toBe(0);
    expect(platform.requests.map((request) => [request.path, request.query, request.headers.authorization])).toEqual([
      ['/v1/computational-governance/audit/checkpoints', { limit: '1' }, 'Bearer auditor-token'],
    ]);
    await expect(verifyEvidence(packFile, { publicKey: publicKeyPem(other.publicKey) })).resolves.toMatchObject({
      verified: false,
      reason: expect.stringMatching(/^signed with key/),
    });
  });

  it('exit 2 without a key to trust, or without the pack', async () => {
    await writeFile(packFile, pack);
    expect(await cgp('evidence', 'verify', packFile)).toBe(2);
    expect(stderr).toBe('cgp: give --public-key <file> (a key you trust) or --server <url>\n');
    stderr = '';
    expect(await cgp('evidence', 'verify', path.join(folder, 'missing.zip'), '--public-key', keyFile)).toBe(2);
    expect(stderr).toMatch(/^cgp: .*missing\.zip: could not be read: ENOENT/);
    expect(stdout).toBe('');
  });
});

describe('cgp evidence export', () => {
  /** The platform's evidence endpoints: a pack pending, then completed; its zip in parts of `partBytes` (206) or whole (200). */
  function evidencePlatform(zip: Uint8Array, options: { partBytes?: number; sha256?: string; error?: string }) {
    const requests: { method: string; url: string; range?: string; body: string }[] = [];
    const packOfStatus = (status: string) => ({
      evidenceId: EVIDENCE_ID,
      status,
      at: '2026-09-30T05:30:00.000Z',
      environments: ['production'],
      resourceTypes: null,
      requestedBy: 'auditor',
      requestedAt: '2026-10-01T00:00:00.000Z',
      completedAt: status === 'completed' ? BUILT.toISOString() : null,
      attempts: 1,
      error: options.error ?? null,
      summary: status === 'completed' ? manifestOf(STRETCH).counts : null,
      size: status === 'completed' ? zip.length : null,
      sha256: status === 'completed' ? (options.sha256 ?? sha256(zip)) : null,
    });
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk));
      request.on('end', () => {
        requests.push({ method: request.method ?? '', url: request.url ?? '', range: request.headers.range, body });
        const json = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (request.method === 'POST') return json(202, packOfStatus('pending'));
        if (!request.url?.endsWith('/pack')) return json(200, packOfStatus(options.error ? 'failed' : requests.length > 2 ? 'completed' : 'running'));
        if (options.partBytes === undefined) return response.writeHead(200, { 'content-type': 'application/zip' }).end(zip);
        const [first, last] = (/^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '') ?? []).slice(1).map(Number);
        const end = Math.min(last, first + options.partBytes - 1, zip.length - 1);
        response
          .writeHead(206, { 'content-type': 'application/zip', 'content-range': `bytes ${first}-${end}/${zip.length}` })
          .end(zip.subarray(first, end + 1));
      });
    });
    return { server, requests };
  }

  let folder: string;
  let outFiles = 0;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'cgp-evidence-export-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  /** Runs `exportEvidence` against a platform answering `zip` as `options` say; what it answered, the requests, and the file written. */
  async function exported(zip: Uint8Array, options: { partBytes?: number; sha256?: string; error?: string }) {
    const { server, requests } = evidencePlatform(zip, options);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    outFiles += 1;
    const out = path.join(folder, `pack-${outFiles}.zip`);
    try {
      const run = exportEvidence({
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        at: '2026-09-30T05:30:00Z',
        environments: ['production'],
        out,
        pollMs: 1,
      });
      return { result: await run, requests, written: await readFile(out) };
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('asks for the pack, waits until it is completed, downloads it by parts and writes it', async () => {
    const big = unzipPack(pack);
    big.delete(PACK_FILES.signature);
    big.set(PACK_FILES.verdicts, randomBytes(9 * 1024 * 1024));
    const zip = packOf(big);
    const { result, requests, written } = await exported(zip, { partBytes: 4 * 1024 * 1024 });
    expect(Buffer.compare(written, zip)).toBe(0);
    expect(requests.map(({ method, url, range }) => [method, url, range])).toEqual([
      ['POST', '/v1/computational-governance/evidence', undefined],
      ['GET', `/v1/computational-governance/evidence/${EVIDENCE_ID}`, undefined],
      ['GET', `/v1/computational-governance/evidence/${EVIDENCE_ID}`, undefined],
      ...[0, 1, 2].map((part) => [
        'GET',
        `/v1/computational-governance/evidence/${EVIDENCE_ID}/pack`,
        `bytes=${part * 4 * 1024 * 1024}-${(part + 1) * 4 * 1024 * 1024 - 1}`,
      ]),
    ]);
    expect(JSON.parse(requests[0].body)).toEqual({ at: '2026-09-30T05:30:00Z', environments: ['production'] });
    expect(result).toMatchObject({ evidenceId: EVIDENCE_ID, size: zip.length, sha256: sha256(zip) });
    expect(evidenceExportText(result)).toMatch(
      new RegExp(`^wrote evidence pack ${EVIDENCE_ID} to .*: ${zip.length} bytes, SHA-256 [0-9a-f]{64}\\n1 policies, 2 verdicts`),
    );
  });

  it("takes a 200 as the whole pack; refuses bytes whose SHA-256 is not the pack's, and a pack that failed", async () => {
    const { written } = await exported(pack, {});
    expect(Buffer.compare(written, pack)).toBe(0);
    await expect(exported(pack, { sha256: '0'.repeat(64) })).rejects.toThrow(/has SHA-256 [0-9a-f]{64}, not the pack's 0{64}: nothing was written/);
    await expect(exported(pack, { error: 'the database was unreachable' })).rejects.toThrow(
      `evidence pack ${EVIDENCE_ID} failed: the database was unreachable`,
    );
  });
});
