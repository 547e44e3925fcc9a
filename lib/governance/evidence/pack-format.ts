import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

import canonicalize from 'canonicalize';
import { strToU8, unzipSync } from 'fflate';

import type { Checkpoint } from '#lib/audit/checkpoint-signature';
import { keyIdOf, publicKeyPem } from '#lib/audit/checkpoint-signature';

/**
 * An evidence pack (docs/evidence.md): a zip of what was enforced, on which resources, with which
 * exceptions, at one past moment, and a signature over the SHA-256 of every file in it made with the
 * platform's audit signing key (the key of the audit chain's checkpoints). No database or settings
 * here: the builder (pack-builder.ts) writes packs with it and `cgp evidence verify` reads them offline.
 */
export const PACK_FORMAT = 'cgp-evidence-pack/1';

/** The files of every pack; the scripts are under scripts/ (PackPolicy.script names each). */
export const PACK_FILES = {
  manifest: 'manifest.json',
  verdicts: 'verdicts.ndjson',
  exceptions: 'exceptions.ndjson',
  approvals: 'approvals.ndjson',
  compliance: 'compliance.json',
  auditRecords: 'audit/records.ndjson',
  auditCheckpoints: 'audit/checkpoints.ndjson',
  signature: 'signature.json',
} as const;

/** A policy or metric version in force at the pack's moment (enabled or in grace then). */
export interface PackPolicy {
  readonly id: string;
  readonly kind: 'policy' | 'metric';
  readonly name: string;
  readonly version: number;
  /** Its status at the pack's moment. */
  readonly status: 'enabled' | 'grace';
  readonly severity: 'info' | 'warning' | 'error';
  /** Null: every environment. */
  readonly environment: string | null;
  readonly resourceType: string;
  /** cue, remote or llm; null for a passive one (results pushed by an outside checker). */
  readonly engine: 'cue' | 'remote' | 'llm' | null;
  /** Since when it had that status (ISO 8601). */
  readonly since: string;
  /** Who moved it there. */
  readonly changedBy: string;
  /** The file of its script in the pack (its CUE, its remote engine's address, its LLM rule). */
  readonly script: string;
  /** SHA-256 (hex) of that file's bytes. */
  readonly scriptSha256: string;
}

/** Where the pack's stretch of the audit chain starts and ends, and the checkpoints that prove it. */
export interface PackAuditStretch {
  /** The first and last seq of audit/records.ndjson (0 and 0 when the chain had no record). */
  readonly fromSeq: number;
  readonly toSeq: number;
  /** The newest record recorded at or before the pack's moment (the records after it lead to the checkpoint). */
  readonly lastSeqAtMoment: number;
  /** The checkpoint of seq fromSeq - 1, whose hash the first record links to; null when the stretch starts the chain. */
  readonly startCheckpoint: Checkpoint | null;
  /** The checkpoint of seq toSeq, which signs the last record's hash. */
  readonly endCheckpoint: Checkpoint | null;
}

export interface PackManifest {
  readonly format: typeof PACK_FORMAT;
  readonly evidenceId: string;
  /** The moment the pack shows (ISO 8601). */
  readonly at: string;
  readonly requestedBy: string;
  readonly requestedAt: string;
  readonly builtAt: string;
  /** Null: every environment, every resource type. */
  readonly scope: { readonly environments: readonly string[] | null; readonly resourceTypes: readonly string[] | null };
  readonly platform: { readonly name: string; readonly version: string };
  readonly policies: readonly PackPolicy[];
  readonly counts: PackCounts;
  readonly audit: PackAuditStretch;
}

export interface PackCounts {
  readonly policies: number;
  readonly verdicts: number;
  readonly resources: number;
  readonly failingResources: number;
  readonly exceptions: number;
  readonly approvals: number;
  readonly auditRecords: number;
}

/** signature.json: the SHA-256 of every other file, signed. */
export interface PackSignature {
  readonly algorithm: 'Ed25519';
  readonly evidenceId: string;
  readonly signedAt: string;
  /** The first 16 hex digits of the SHA-256 of the public key (DER), as a checkpoint's keyId. */
  readonly keyId: string;
  /** The public key (PEM, SPKI) the pack says signed it: checked against a key the verifier trusts, never trusted alone. */
  readonly publicKey: string;
  /** Every file but signature.json, by path, sorted: its SHA-256 (hex). */
  readonly files: Readonly<Record<string, string>>;
  /** base64 Ed25519 signature of the RFC 8785 canonical JSON of { evidenceId, signedAt, keyId, files }. */
  readonly signature: string;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const signedBytes = ({ evidenceId, signedAt, keyId, files }: Omit<PackSignature, 'signature' | 'algorithm' | 'publicKey'>) =>
  Buffer.from(canonicalize({ evidenceId, signedAt, keyId, files }) ?? '', 'utf8');

/** The signature of the files whose SHA-256 (hex) `hashes` holds by path (every file of the pack but signature.json). */
export function signHashes(
  evidenceId: string,
  hashes: Readonly<Record<string, string>>,
  key: { privateKey: KeyObject; publicKey: KeyObject },
  signedAt: Date,
): PackSignature {
  const files = Object.fromEntries(
    Object.keys(hashes)
      .sort()
      .map((file) => [file, hashes[file]]),
  );
  const unsigned = { evidenceId, signedAt: signedAt.toISOString(), keyId: keyIdOf(key.publicKey), files };
  return {
    algorithm: 'Ed25519',
    ...unsigned,
    publicKey: publicKeyPem(key.publicKey),
    signature: sign(null, signedBytes(unsigned), key.privateKey).toString('base64'),
  };
}

/** Whether `signature` was made by the key `publicKey` (PEM) over its files' hashes, unchanged since. */
export function packSignatureHolds(signature: PackSignature, publicKey: string): boolean {
  try {
    const key = createPublicKey(publicKey);
    return keyIdOf(key) === signature.keyId && verify(null, signedBytes(signature), key, Buffer.from(signature.signature, 'base64'));
  } catch {
    return false;
  }
}

/** One JSON value per line, each line ended. */
export const ndjson = (values: readonly unknown[]): Uint8Array => strToU8(values.map((value) => `${JSON.stringify(value)}\n`).join(''));

/** Pretty JSON, ended by a newline. */
export const jsonFile = (value: unknown): Uint8Array => strToU8(`${JSON.stringify(value, null, 2)}\n`);

/** A zip whose files cannot be told apart by name: its message names the file. */
export class UnreadableZip extends Error {}

/**
 * The files of a zip, by path; a directory is left out unless it has content (then it is a file of
 * the pack like any other). Throws UnreadableZip on a zip holding two files of one name (one would
 * hide the other) or a file the zip reader cannot keep (`__proto__`); another error on bytes that are not a zip.
 */
export function unzipPack(bytes: Uint8Array): Map<string, Uint8Array> {
  const names = new Set<string>();
  const files = unzipSync(bytes, {
    filter: ({ name }) => {
      if (names.has(name)) throw new UnreadableZip(`the zip holds two files named ${name} (one would hide the other)`);
      names.add(name);
      return true;
    },
  });
  const dropped = [...names].find((name) => !Object.hasOwn(files, name));
  if (dropped !== undefined) throw new UnreadableZip(`the zip holds a file named ${dropped}, which cannot be read as one`);
  return new Map(Object.entries(files).filter(([name, data]) => !(name.endsWith('/') && data.length === 0)));
}
