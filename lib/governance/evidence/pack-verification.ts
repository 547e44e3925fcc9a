import { createPublicKey } from 'node:crypto';

import { strFromU8 } from 'fflate';
import { z } from 'zod';

import { type ChainedRecord, ChainVerifier, GENESIS_HASH } from '#lib/audit/audit-chain';
import { chainedRecord, checkpoint } from '#lib/audit/audit-schemas';
import { type Checkpoint, checkpointHolds, keyIdOf } from '#lib/audit/checkpoint-signature';

import { PACK_FILES, PACK_FORMAT, type PackManifest, type PackSignature, packSignatureHolds, sha256, UnreadableZip, unzipPack } from './pack-format';

/** Whether an evidence pack is what the platform signed (docs/evidence.md, "Verifying a pack"), and what it holds; or the first thing that does not hold. */
export type PackVerdict =
  | {
      readonly verified: true;
      /** The files the signature covers (every file of the pack but signature.json). */
      readonly files: number;
      readonly keyId: string;
      readonly audit: { readonly fromSeq: number; readonly toSeq: number; readonly checkpoints: number };
      readonly manifest: PackManifest;
    }
  | { readonly verified: false; readonly reason: string };

/** What verification reads of signature.json (pack-format.ts's PackSignature). */
const packSignature = z.object({
  algorithm: z.literal('Ed25519'),
  evidenceId: z.string(),
  signedAt: z.string(),
  keyId: z.string(),
  publicKey: z.string(),
  files: z.record(z.string(), z.string()),
  signature: z.string(),
});

/** What verification reads of manifest.json (pack-format.ts's PackManifest); the rest is kept as it is. */
const packManifest = z.looseObject({
  format: z.literal(PACK_FORMAT, { error: (issue) => `it is of format ${JSON.stringify(issue.input)}, not ${PACK_FORMAT}` }),
  evidenceId: z.string(),
  at: z.iso.datetime({ offset: true }),
  policies: z.array(z.looseObject({ id: z.string(), kind: z.enum(['policy', 'metric']), version: z.number(), script: z.string(), scriptSha256: z.string() })),
  counts: z.looseObject({ policies: z.number(), verdicts: z.number(), exceptions: z.number(), approvals: z.number() }),
  audit: z.object({
    fromSeq: z.number().int(),
    toSeq: z.number().int(),
    lastSeqAtMoment: z.number().int(),
    startCheckpoint: checkpoint.nullable(),
    endCheckpoint: checkpoint.nullable(),
  }),
});

/** A step's finding: the reason it does not hold, or undefined when it holds. */
type Finding = string | undefined;

/** The JSON of a file of the pack read by `schema`, or why it cannot be (its name in the words). */
function jsonOf<T>(files: ReadonlyMap<string, Uint8Array>, file: string, schema: z.ZodType<T>, what: string): { value: T } | { reason: string } {
  const bytes = files.get(file);
  if (!bytes) return { reason: `${file} is missing` };
  let json: unknown;
  try {
    json = JSON.parse(strFromU8(bytes));
  } catch {
    return { reason: `${file} is not JSON` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { reason: `${file} is not ${what}: ${issue?.path.join('.') || '(the whole)'}: ${issue?.message}` };
  }
  return { value: parsed.data };
}

/** The values of an NDJSON file of the pack read by `schema`, or why they cannot be (the file and line in the words). */
function linesOf<T>(files: ReadonlyMap<string, Uint8Array>, file: string, schema: z.ZodType<T>, what: string): { values: T[] } | { reason: string } {
  const bytes = files.get(file);
  if (!bytes) return { reason: `${file} is missing` };
  const values: T[] = [];
  for (const [index, line] of strFromU8(bytes).split('\n').entries()) {
    if (line === '') continue;
    let parsed;
    try {
      parsed = schema.safeParse(JSON.parse(line));
    } catch {
      return { reason: `${file} line ${index + 1} is not JSON` };
    }
    if (!parsed.success) return { reason: `${file} line ${index + 1} is not ${what}: ${parsed.error.issues[0]?.message}` };
    values.push(parsed.data);
  }
  return { values };
}

/** The key id of a PEM public key, or undefined when it is not one. */
function keyIdOfPem(pem: string): string | undefined {
  try {
    return keyIdOf(createPublicKey(pem));
  } catch {
    return undefined;
  }
}

/** Every file signature.json lists is there with its SHA-256, and no other file is: the first that is not, in words. */
function filesFinding(files: ReadonlyMap<string, Uint8Array>, signature: PackSignature): Finding {
  for (const [file, signed] of Object.entries(signature.files).sort(([a], [b]) => a.localeCompare(b))) {
    const bytes = files.get(file);
    if (!bytes) return `${file} is missing: signature.json lists it (a file was removed)`;
    const actual = sha256(bytes);
    if (actual !== signed) return `${file} was changed: its SHA-256 is ${actual}, the signed one ${signed}`;
  }
  const added = [...files.keys()].sort().find((file) => file !== PACK_FILES.signature && !Object.hasOwn(signature.files, file));
  return added === undefined ? undefined : `${added} is not in signature.json: it was added to the pack`;
}

/** Each policy's script is in the pack with the manifest's scriptSha256: the first that is not, in words. */
function scriptsFinding(files: ReadonlyMap<string, Uint8Array>, manifest: PackManifest): Finding {
  for (const policy of manifest.policies) {
    const of = `the script of ${policy.kind} ${policy.id} version ${policy.version}`;
    const bytes = files.get(policy.script);
    if (!bytes) return `${policy.script}, ${of}, is missing`;
    if (sha256(bytes) !== policy.scriptSha256) return `${policy.script}, ${of}, does not have the manifest's scriptSha256 ${policy.scriptSha256}`;
  }
  return undefined;
}

/** The lines of an NDJSON file of the pack. */
const lineCount = (bytes: Uint8Array | undefined) =>
  bytes
    ? strFromU8(bytes)
        .split('\n')
        .filter((line) => line !== '').length
    : 0;

/** The manifest's counts are those of the files (policies, verdicts, exceptions, approvals): the first that is not, in words. */
function countsFinding(files: ReadonlyMap<string, Uint8Array>, manifest: PackManifest): Finding {
  const held = {
    policies: manifest.policies.length,
    verdicts: lineCount(files.get(PACK_FILES.verdicts)),
    exceptions: lineCount(files.get(PACK_FILES.exceptions)),
    approvals: lineCount(files.get(PACK_FILES.approvals)),
  };
  const wrong = (Object.keys(held) as (keyof typeof held)[]).find((name) => manifest.counts[name] !== held[name]);
  return wrong === undefined ? undefined : `${PACK_FILES.manifest} counts ${manifest.counts[wrong]} ${wrong}, the pack holds ${held[wrong]}`;
}

/** Whether two checkpoints are the same, every field. */
const sameCheckpoint = (a: Checkpoint, b: Checkpoint) =>
  a.seq === b.seq && a.hash === b.hash && a.signedAt === b.signedAt && a.keyId === b.keyId && a.signature === b.signature;

/** The manifest's start and end checkpoints are among the signed ones of audit/checkpoints.ndjson: the first that is not, in words. */
function boundsFinding(audit: PackManifest['audit'], checkpoints: readonly Checkpoint[]): Finding {
  for (const [name, bound] of [
    ['startCheckpoint', audit.startCheckpoint],
    ['endCheckpoint', audit.endCheckpoint],
  ] as const) {
    if (bound && !checkpoints.some((signed) => sameCheckpoint(signed, bound)))
      return `the manifest's ${name} (seq ${bound.seq}) is not one of the checkpoints of ${PACK_FILES.auditCheckpoints}`;
  }
  return undefined;
}

/** The records run from fromSeq to toSeq, each hashed and linked from the start checkpoint to the end one: the first break, in words. */
function recordsFinding(audit: PackManifest['audit'], records: readonly ChainedRecord[], checkpoints: readonly Checkpoint[]): Finding {
  const { fromSeq, toSeq, startCheckpoint, endCheckpoint } = audit;
  const file = PACK_FILES.auditRecords;
  if (startCheckpoint === null && fromSeq !== 1) return `it starts at fromSeq ${fromSeq} without a start checkpoint (only a stretch from seq 1 may)`;
  if (startCheckpoint !== null && startCheckpoint.seq !== fromSeq - 1)
    return `its start checkpoint signed seq ${startCheckpoint.seq}, not seq ${fromSeq - 1}, the one before fromSeq ${fromSeq}`;
  const startHash = startCheckpoint?.hash ?? GENESIS_HASH;
  if (records[0] && records[0].previousHash !== startHash)
    return `${file}, seq ${records[0].seq}: its previousHash is not ${startCheckpoint ? "the start checkpoint's hash" : 'the start of the chain (64 zeros)'}`;
  const verifier = new ChainVerifier(false);
  // The checkpoints by the seq they signed: one look per record, whatever the stretch's length.
  const signedAt = new Map<number, Checkpoint[]>();
  for (const signed of checkpoints) signedAt.set(signed.seq, [...(signedAt.get(signed.seq) ?? []), signed]);
  let expected = fromSeq;
  for (const record of records) {
    if (record.seq !== expected) return `records ${expected}..${record.seq - 1} are missing from ${file} (seq runs from fromSeq ${fromSeq} without a gap)`;
    const broken = verifier.add(record);
    if (broken?.hashWrong) return `${file}, seq ${record.seq}: its hash does not match its content (the record or its hash was changed)`;
    if (broken) return `${file}, seq ${record.seq}: its previousHash is not the hash of the record before it`;
    const differs = signedAt.get(record.seq)?.find((signed) => signed.hash !== record.hash);
    if (differs) return `${file}, seq ${record.seq}: its hash is not the one the checkpoint signed at ${differs.signedAt} holds (the chain was rewritten)`;
    expected = record.seq + 1;
  }
  if (expected - 1 < toSeq) return `records ${expected}..${toSeq} are missing from ${file}: it ends at seq ${expected - 1}, toSeq is ${toSeq} (cut short)`;
  if (expected - 1 > toSeq) return `${file} runs past toSeq ${toSeq}, to seq ${expected - 1}`;
  if (endCheckpoint === null) return `it has no end checkpoint to sign seq ${toSeq}`;
  if (endCheckpoint.seq !== toSeq) return `its end checkpoint signed seq ${endCheckpoint.seq}, not toSeq ${toSeq}`;
  if ((records.at(-1)?.hash ?? startHash) !== endCheckpoint.hash) return `the hash of seq ${toSeq} is not the one its end checkpoint signed`;
  return undefined;
}

/** lastSeqAtMoment is where the pack's moment falls in the records: its record recorded at or before it, every later one after it. */
function momentFinding(at: string, lastSeqAtMoment: number, records: readonly ChainedRecord[]): Finding {
  const moment = Date.parse(at);
  for (const { seq, recordedAt } of records) {
    const after = Date.parse(recordedAt) > moment;
    if (seq === lastSeqAtMoment && after) return `lastSeqAtMoment ${seq} was recorded at ${recordedAt}, after the pack's moment ${at}`;
    if (seq > lastSeqAtMoment && !after)
      return `seq ${seq}, after lastSeqAtMoment ${lastSeqAtMoment}, was recorded at ${recordedAt}, not after the pack's moment`;
  }
  return undefined;
}

/** The records and checkpoints of the pack's audit stretch, or why they cannot be read. */
interface AuditFiles {
  readonly records: readonly ChainedRecord[];
  readonly checkpoints: readonly Checkpoint[];
}

/** audit/records.ndjson and audit/checkpoints.ndjson, read; or the first line that is not a record or a checkpoint, in words. */
function auditFilesOf(files: ReadonlyMap<string, Uint8Array>): AuditFiles | { reason: string } {
  const checkpoints = linesOf(files, PACK_FILES.auditCheckpoints, checkpoint, 'a checkpoint');
  if ('reason' in checkpoints) return checkpoints;
  const records = linesOf(files, PACK_FILES.auditRecords, chainedRecord, 'an audit record');
  if ('reason' in records) return records;
  return { records: records.values, checkpoints: checkpoints.values };
}

/** The audit stretch of the pack holds against the checkpoints signed with the trusted key: the first that does not, in words. */
function auditFinding({ records, checkpoints }: AuditFiles, { at, audit }: PackManifest, trustedPublicKey: string): Finding {
  const forged = checkpoints.findIndex((signed) => !checkpointHolds(signed, trustedPublicKey));
  if (forged >= 0) {
    const { seq, signedAt } = checkpoints[forged];
    const line = `${PACK_FILES.auditCheckpoints} line ${forged + 1}`;
    return `${line}: the checkpoint of seq ${seq} signed at ${signedAt} does not verify with the trusted key (forged or changed)`;
  }
  const bounds = boundsFinding(audit, checkpoints);
  if (bounds) return bounds;
  const { fromSeq, toSeq, lastSeqAtMoment, startCheckpoint, endCheckpoint } = audit;
  if (fromSeq === 0) {
    return toSeq === 0 && records.length === 0 && startCheckpoint === null && endCheckpoint === null && lastSeqAtMoment === 0
      ? undefined
      : 'fromSeq 0 is an empty chain: toSeq and lastSeqAtMoment 0, no record, no start or end checkpoint';
  }
  const chain = recordsFinding(audit, records, checkpoints);
  if (chain) return chain;
  if (lastSeqAtMoment < fromSeq - 1 || lastSeqAtMoment > toSeq) return `lastSeqAtMoment ${lastSeqAtMoment} is not within ${fromSeq - 1}..${toSeq}`;
  return momentFinding(at, lastSeqAtMoment, records);
}

/**
 * Verifies the bytes of an evidence pack with the public key (PEM) the verifier trusts, in this
 * order: a zip with signature.json and manifest.json (of this format); signed with the trusted key; the
 * signature holds; every file's SHA-256 as signed, none removed or added; each script's SHA-256 as
 * the manifest says; the audit stretch (docs/evidence.md). The first that does not hold is the reason.
 * Throws when the trusted key is not a public key.
 */
export function verifyPack(bytes: Uint8Array, trustedPublicKey: string): PackVerdict {
  const trustedKeyId = keyIdOfPem(trustedPublicKey);
  if (trustedKeyId === undefined) throw new Error('the trusted key is not a public key (PEM)');
  const fail = (reason: string): PackVerdict => ({ verified: false, reason });
  let files: Map<string, Uint8Array>;
  try {
    files = unzipPack(bytes);
  } catch (error) {
    return fail(error instanceof UnreadableZip ? error.message : 'not a zip');
  }
  const signature = jsonOf(files, PACK_FILES.signature, packSignature, 'a pack signature');
  if ('reason' in signature) return fail(signature.reason);
  const manifest = jsonOf(files, PACK_FILES.manifest, packManifest as unknown as z.ZodType<PackManifest>, 'a pack manifest');
  if ('reason' in manifest) return fail(manifest.reason);

  if (signature.value.evidenceId !== manifest.value.evidenceId)
    return fail(`${PACK_FILES.signature} signs pack ${signature.value.evidenceId}, ${PACK_FILES.manifest} is of pack ${manifest.value.evidenceId}`);
  const packKeyId = keyIdOfPem(signature.value.publicKey);
  if (packKeyId !== trustedKeyId)
    return fail(`signed with key ${packKeyId ?? `${signature.value.keyId} (not a public key)`}, not the trusted key ${trustedKeyId}`);
  if (!packSignatureHolds(signature.value, trustedPublicKey))
    return fail(`the signature of ${PACK_FILES.signature} does not verify with the trusted key: its list of files or their hashes were changed after signing`);
  const finding = filesFinding(files, signature.value) ?? scriptsFinding(files, manifest.value) ?? countsFinding(files, manifest.value);
  if (finding) return fail(finding);
  const audit = auditFilesOf(files);
  if ('reason' in audit) return fail(`audit stretch: ${audit.reason}`);
  const auditBreak = auditFinding(audit, manifest.value, trustedPublicKey);
  if (auditBreak) return fail(`audit stretch: ${auditBreak}`);
  const { fromSeq, toSeq } = manifest.value.audit;
  return {
    verified: true,
    files: Object.keys(signature.value.files).length,
    keyId: trustedKeyId,
    audit: { fromSeq, toSeq, checkpoints: audit.checkpoints.length },
    manifest: manifest.value,
  };
}

/** The verdict in words: what was verified (the pack, its key, its files, its audit stretch), or the first thing that does not hold. */
export function packVerdictText(verdict: PackVerdict): string {
  if (!verdict.verified) return `evidence pack not verified: ${verdict.reason}\n`;
  const { manifest, audit } = verdict;
  const { counts } = manifest;
  const held = `${counts.policies} policies, ${counts.verdicts} verdicts, ${counts.exceptions} exceptions, ${counts.approvals} approvals`;
  const checkpoints = `${audit.checkpoints} signed checkpoint${audit.checkpoints === 1 ? '' : 's'}`;
  const stretch = audit.toSeq === 0 ? 'the audit chain had no record' : `audit records seq ${audit.fromSeq}..${audit.toSeq} against ${checkpoints}`;
  const pack = `verified evidence pack ${manifest.evidenceId} of ${manifest.at}, signed with the trusted key ${verdict.keyId}`;
  return `${pack}\n${verdict.files} files: ${held}\n${stretch}\n`;
}
