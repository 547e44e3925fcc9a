import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

import { ApiError } from '#lib/api/api-error';
import { listCheckpointsEndpoint } from '#lib/audit/endpoints';
import { createEvidenceEndpoint, getEvidenceEndpoint, getEvidencePackEndpoint } from '#lib/governance/evidence/endpoints';
import type { EvidencePack } from '#lib/governance/evidence/evidence';
import { sha256 } from '#lib/governance/evidence/pack-format';
import { type PackVerdict, verifyPack } from '#lib/governance/evidence/pack-verification';

import { type ApiAccess, ApiClient } from './api-client';
import { UsageError } from './usage-error';

/** The most one answer of GET /evidence/{id}/pack holds: the size of each part asked for. */
const PART_BYTES = 4 * 1024 * 1024;

export interface EvidenceExportOptions extends ApiAccess {
  /** The moment the pack shows (ISO 8601 with its offset); default: now. */
  readonly at?: string;
  /** Absent: every environment, every resource type. */
  readonly environments?: readonly string[];
  readonly resourceTypes?: readonly string[];
  /** The file the zip is written to. */
  readonly out: string;
  /** How long to wait between two readings of the pack's status (default 1 s). */
  readonly pollMs?: number;
  /** How long to wait for the pack to be built, in seconds (default 600). */
  readonly timeout?: number;
}

/** What `cgp evidence export` wrote. */
export interface EvidenceExport {
  readonly evidenceId: string;
  readonly out: string;
  readonly size: number;
  readonly sha256: string;
  readonly summary: EvidencePack['summary'];
}

/**
 * The pack once built: its status read every `pollMs` until it is completed. A failed pack throws its
 * error; so does one still not built after `timeoutMs`.
 */
async function completed(client: ApiClient, asked: EvidencePack, pollMs: number, timeoutMs: number): Promise<EvidencePack> {
  const until = Date.now() + timeoutMs;
  for (let pack = asked; ; pack = (await client.call(getEvidenceEndpoint, { params: { id: asked.evidenceId } })).body) {
    if (pack.status === 'completed') return pack;
    if (pack.status === 'failed') throw new Error(`evidence pack ${pack.evidenceId} failed: ${pack.error ?? 'the platform gave no reason'}`);
    if (Date.now() >= until) {
      throw new Error(
        `evidence pack ${pack.evidenceId} is still ${pack.status} after ${timeoutMs / 1000} s` +
          `${pack.error ? ` (its last attempt failed: ${pack.error})` : ''}; GET /evidence/${pack.evidenceId} says when it is built`,
      );
    }
    await sleep(pollMs);
  }
}

/** The zip of a completed pack, asked for in parts of 4 MiB (Range) until Content-Range's size is reached; a 200 is the whole. */
async function downloaded(client: ApiClient, evidenceId: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (let offset = 0; ;) {
    const range = `bytes=${offset}-${offset + PART_BYTES - 1}`;
    const { status, headers, bytes } = await client.bytes(getEvidencePackEndpoint, { params: { id: evidenceId }, headers: { range } });
    if (status === 200) return bytes;
    const contentRange = headers.get('content-range') ?? '';
    const [, first, last, size] = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange) ?? [];
    if (Number(first) !== offset || Number(last) - offset + 1 !== bytes.length)
      throw new ApiError(status, `GET /evidence/${evidenceId}/pack answered ${bytes.length} bytes with Content-Range "${contentRange}" to Range ${range}`);
    parts.push(bytes);
    offset += bytes.length;
    if (offset >= Number(size)) return Buffer.concat(parts);
  }
}

/**
 * `cgp evidence export`: asks the platform for an evidence pack (docs/evidence.md), waits until it is
 * built, downloads its zip by parts, checks the bytes have the SHA-256 the platform gave the pack, and
 * writes them to `out`. Nothing is written when they do not.
 */
export async function exportEvidence(options: EvidenceExportOptions): Promise<EvidenceExport> {
  const client = new ApiClient(options);
  const { at, environments, resourceTypes } = options;
  const asked = await client.call(createEvidenceEndpoint, {
    body: { at, environments: environments && [...environments], resourceTypes: resourceTypes && [...resourceTypes] },
  });
  const pack = await completed(client, asked.body, options.pollMs ?? 1000, (options.timeout ?? 600) * 1000);
  const bytes = await downloaded(client, pack.evidenceId);
  const digest = sha256(bytes);
  if (digest !== pack.sha256)
    throw new Error(`the zip downloaded of evidence pack ${pack.evidenceId} has SHA-256 ${digest}, not the pack's ${pack.sha256}: nothing was written`);
  try {
    await writeFile(options.out, bytes);
  } catch (error) {
    throw new UsageError(`${options.out}: could not be written: ${(error as Error).message}`);
  }
  return { evidenceId: pack.evidenceId, out: options.out, size: bytes.length, sha256: digest, summary: pack.summary };
}

/** What was written, in words: the pack, its file, its size and hash, and what it holds. */
export function evidenceExportText(written: EvidenceExport): string {
  const { summary } = written;
  const held = summary
    ? `${summary.policies} policies, ${summary.verdicts} verdicts on ${summary.resources} resources (${summary.failingResources} failing), ` +
      `${summary.exceptions} exceptions, ${summary.approvals} approvals, ${summary.auditRecords} audit records\n`
    : '';
  return `wrote evidence pack ${written.evidenceId} to ${written.out}: ${written.size} bytes, SHA-256 ${written.sha256}\n${held}`;
}

export interface EvidenceVerifyOptions extends ApiAccess {
  /** The public key (PEM) the auditor trusts; else the one the platform of `server` answers. */
  readonly publicKey?: string;
}

/** The public key to trust: the one given, else the platform's (GET /audit/checkpoints answers it). Neither is a usage error. */
async function trustedKeyOf(options: EvidenceVerifyOptions): Promise<string> {
  if (options.publicKey !== undefined) return options.publicKey;
  if (options.server === undefined) throw new UsageError('give --public-key <file> (a key you trust) or --server <url>');
  const { body } = await new ApiClient(options).call(listCheckpointsEndpoint, { query: { limit: 1 } });
  return body.publicKey;
}

/** `cgp evidence verify`: the verdict on the pack in `file` (lib/governance/evidence/pack-verification.ts), with the key to trust. */
export async function verifyEvidence(file: string, options: EvidenceVerifyOptions): Promise<PackVerdict> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new UsageError(`${file}: could not be read: ${(error as Error).message}`);
  }
  return verifyPack(bytes, await trustedKeyOf(options));
}
