import { createHash } from 'node:crypto';

import { strToU8 } from 'fflate';

import { auditStretch, stretchRecordPages } from '#lib/audit/audit-stretch';
import { signingKeyFor } from '#lib/audit/checkpoints';
import { SERVICE_NAME } from '#lib/observability/service-name';

import packageJson from '../../../package.json' with { type: 'json' };
import type { GovernanceContext } from '../context';
import { type EvidenceRow, PACK_PART_BYTES } from './evidence-repository';
import { ComplianceTally, MomentReading, type VersionInForce } from './moment-reading';
import { jsonFile, ndjson, PACK_FILES, PACK_FORMAT, type PackCounts, type PackManifest, type PackPolicy, sha256 } from './pack-format';
import { type PackFileWriter, PackWriter } from './pack-writer';

/** A built pack: its zip's size and SHA-256 (the zip is in the parts given to `store`), and the counts its status answers. */
export interface BuiltPack {
  readonly size: number;
  readonly sha256: string;
  readonly summary: PackCounts;
}

/** Where the zip goes as it is made: part `part` (0, 1, ...), each PACK_PART_BYTES long but the last. */
export type PartStore = (part: number, bytes: Buffer) => Promise<void>;

/** The zip's bytes cut into parts as they come, each stored once full; its size and SHA-256 taken on the way. */
class ZipParts {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private parts = 0;
  private size = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly store: PartStore) {}

  async add(chunks: readonly Uint8Array[]): Promise<void> {
    for (const chunk of chunks) {
      this.hash.update(chunk);
      this.size += chunk.length;
      this.buffered.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      this.bufferedBytes += chunk.length;
    }
    while (this.bufferedBytes >= PACK_PART_BYTES) {
      const all = Buffer.concat(this.buffered);
      await this.store(this.parts++, all.subarray(0, PACK_PART_BYTES));
      this.buffered = [all.subarray(PACK_PART_BYTES)];
      this.bufferedBytes = all.length - PACK_PART_BYTES;
    }
  }

  /** Stores the last part; the zip's size and SHA-256. */
  async end(): Promise<{ size: number; sha256: string }> {
    if (this.bufferedBytes > 0) await this.store(this.parts++, Buffer.concat(this.buffered));
    return { size: this.size, sha256: this.hash.digest('hex') };
  }
}

/** The file of a version's script in the pack: its CUE, its remote engine's address, or its LLM rule. */
function scriptFile(version: VersionInForce): { path: string; bytes: Uint8Array } {
  const base = `scripts/${version.kind}/${version.id}/v${version.version}`;
  if (version.engine === 'remote') return { path: `${base}.json`, bytes: jsonFile({ remoteEngineUrl: version.remoteEngineUrl }) };
  if (version.engine === 'llm') return { path: `${base}.txt`, bytes: strToU8(version.llmRule ?? '') };
  return { path: `${base}.cue`, bytes: strToU8(version.cueScript ?? '') };
}

/** Writes each item of the pages as a line of `file`, handing the zip's bytes to `parts` after each page; answers how many. */
async function writeLines<T>(file: PackFileWriter, pages: AsyncIterable<readonly T[]>, writer: PackWriter, parts: ZipParts, each?: (item: T) => void) {
  let count = 0;
  for await (const page of pages) {
    for (const item of page) {
      each?.(item);
      file.write(PackWriter.line(item));
    }
    count += page.length;
    await parts.add(writer.take());
  }
  file.end();
  return count;
}

/**
 * The evidence pack of `pack` (docs/evidence.md): the history as of its moment, read from the
 * database a page at a time, with the stretch of the audit chain that proves it, signed with the audit
 * signing key, written as a zip stream into parts (`store`): neither the verdicts nor the zip are held whole.
 */
export async function buildPack(ctx: GovernanceContext, pack: EvidenceRow, store: PartStore, builtAt = new Date()): Promise<BuiltPack> {
  const key = await signingKeyFor(ctx.settings);
  const reading = new MomentReading(ctx.database, pack.at, { environments: pack.environments, resourceTypes: pack.resourceTypes });
  const versions = await reading.versionsInForce();
  const [exceptions, approvals] = await Promise.all([reading.exceptions(versions), reading.approvals(versions)]);
  const stretch = await auditStretch(ctx, pack.at, ctx.settings.auditChain.evidenceStretch);
  const writer = new PackWriter(builtAt);
  const parts = new ZipParts(store);

  const policies = versions.map((version): PackPolicy => {
    const { path, bytes } = scriptFile(version);
    writer.add(path, bytes);
    const { cueScript: _cue, remoteEngineUrl: _url, llmRule: _rule, ...described } = version;
    return { ...described, script: path, scriptSha256: sha256(bytes) };
  });
  const compliance = new ComplianceTally();
  const verdicts = await writeLines(writer.open(PACK_FILES.verdicts), reading.verdictPages(versions), writer, parts, (verdict) => compliance.add(verdict));
  const auditRecords = await writeLines(writer.open(PACK_FILES.auditRecords), stretchRecordPages(ctx.database, stretch), writer, parts);
  writer.add(PACK_FILES.auditCheckpoints, ndjson(stretch.checkpoints));
  writer.add(PACK_FILES.exceptions, ndjson(exceptions));
  writer.add(PACK_FILES.approvals, ndjson(approvals));
  const summary = compliance.summary();
  writer.add(PACK_FILES.compliance, jsonFile({ at: pack.at.toISOString(), ...summary }));
  const counts: PackCounts = {
    policies: policies.length,
    verdicts,
    resources: summary.resources.total,
    failingResources: summary.resources.failing,
    exceptions: exceptions.length,
    approvals: approvals.length,
    auditRecords,
  };
  const { checkpoints: _checkpoints, ...bounds } = stretch;
  const manifest: PackManifest = {
    format: PACK_FORMAT,
    evidenceId: pack.id,
    at: pack.at.toISOString(),
    requestedBy: pack.requestedBy,
    requestedAt: pack.requestedAt.toISOString(),
    builtAt: builtAt.toISOString(),
    scope: { environments: pack.environments, resourceTypes: pack.resourceTypes },
    platform: { name: SERVICE_NAME, version: packageJson.version },
    policies,
    counts,
    audit: bounds,
  };
  writer.add(PACK_FILES.manifest, jsonFile(manifest));
  writer.finish(pack.id, key, builtAt);
  await parts.add(writer.take());
  return { ...(await parts.end()), summary: counts };
}
