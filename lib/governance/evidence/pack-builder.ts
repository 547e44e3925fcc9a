import { strToU8 } from 'fflate';

import { auditStretch } from '#lib/audit/audit-stretch';
import { signingKeyFor } from '#lib/audit/checkpoints';
import { SERVICE_NAME } from '#lib/observability/service-name';

import packageJson from '../../../package.json' with { type: 'json' };
import type { GovernanceContext } from '../context';
import type { EvidenceRow } from './evidence-repository';
import { complianceOf, MomentReading, type VersionInForce } from './moment-reading';
import { jsonFile, ndjson, PACK_FILES, PACK_FORMAT, type PackCounts, type PackManifest, type PackPolicy, sha256, signPack, zipPack } from './pack-format';

/** A built pack: the zip, its SHA-256, and the counts its status answers. */
export interface BuiltPack {
  readonly bytes: Uint8Array;
  readonly sha256: string;
  readonly summary: PackCounts;
}

/** The file of a version's script in the pack: its CUE, its remote engine's address, or its LLM rule. */
function scriptFile(version: VersionInForce): { path: string; bytes: Uint8Array } {
  const base = `scripts/${version.kind}/${version.id}/v${version.version}`;
  if (version.engine === 'remote') return { path: `${base}.json`, bytes: jsonFile({ remoteEngineUrl: version.remoteEngineUrl }) };
  if (version.engine === 'llm') return { path: `${base}.txt`, bytes: strToU8(version.llmRule ?? '') };
  return { path: `${base}.cue`, bytes: strToU8(version.cueScript ?? '') };
}

/**
 * The evidence pack of `pack` (docs/evidence.md): the history as of its moment, read from the
 * database, with the stretch of the audit chain that proves it, signed with the audit signing key.
 */
export async function buildPack(ctx: GovernanceContext, pack: EvidenceRow, builtAt = new Date()): Promise<BuiltPack> {
  const key = await signingKeyFor(ctx.settings);
  const reading = new MomentReading(ctx.database, pack.at, { environments: pack.environments, resourceTypes: pack.resourceTypes });
  const versions = await reading.versionsInForce();
  const [verdicts, exceptions, approvals] = await Promise.all([reading.verdicts(versions), reading.exceptions(versions), reading.approvals(versions)]);
  const { records, checkpoints, ...stretch } = await auditStretch(ctx, pack.at, ctx.settings.auditChain.evidenceStretch);

  const files = new Map<string, Uint8Array>();
  const policies = versions.map((version): PackPolicy => {
    const { path, bytes } = scriptFile(version);
    files.set(path, bytes);
    const { cueScript: _cue, remoteEngineUrl: _url, llmRule: _rule, ...described } = version;
    return { ...described, script: path, scriptSha256: sha256(bytes) };
  });
  const compliance = complianceOf(verdicts);
  const counts: PackCounts = {
    policies: policies.length,
    verdicts: verdicts.length,
    resources: compliance.resources.total,
    failingResources: compliance.resources.failing,
    exceptions: exceptions.length,
    approvals: approvals.length,
    auditRecords: records.length,
  };
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
    audit: stretch,
  };
  files.set(PACK_FILES.manifest, jsonFile(manifest));
  files.set(PACK_FILES.verdicts, ndjson(verdicts));
  files.set(PACK_FILES.exceptions, ndjson(exceptions));
  files.set(PACK_FILES.approvals, ndjson(approvals));
  files.set(PACK_FILES.compliance, jsonFile({ at: manifest.at, ...compliance }));
  files.set(PACK_FILES.auditRecords, ndjson(records));
  files.set(PACK_FILES.auditCheckpoints, ndjson(checkpoints));
  const bytes = zipPack(files, signPack(pack.id, files, key, builtAt), builtAt);
  return { bytes, sha256: sha256(bytes), summary: counts };
}
