import { ConflictError, type FieldError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';
import { HttpProblem } from '#lib/http/problems';
import { logger } from '#lib/logging/logger';
import { maxReceivesOf } from '#lib/queue/queue-from-settings';

import type { GovernanceContext } from '../context';
import { EnvironmentRepository } from '../environments/environment-repository';
import { ResourceTypeRepository } from '../resource-types/resource-type-repository';
import type { EvidenceInput, EvidencePack } from './evidence';
import { EvidenceRepository, type EvidenceRow, PACK_PART_BYTES } from './evidence-repository';
import { buildPack } from './pack-builder';

const DAY_MS = 86_400_000;
/** A build holds its pack this long (the worker's timeout is 120 s); past it, the sweeper hands the pack on again. */
const LEASE_MS = 180_000;

const iso = (value: Date | null) => value?.toISOString() ?? null;

export const evidenceOf = (row: EvidenceRow): EvidencePack => ({
  evidenceId: row.id,
  status: row.status,
  at: row.at.toISOString(),
  environments: row.environments,
  resourceTypes: row.resourceTypes,
  requestedBy: row.requestedBy,
  requestedAt: row.requestedAt.toISOString(),
  completedAt: iso(row.completedAt),
  attempts: row.attempts,
  error: row.error,
  summary: (row.summary as EvidencePack['summary']) ?? null,
  size: row.size,
  sha256: row.sha256,
});

/**
 * The moment asked, within what the history keeps: not after now, not older than `retention.reports`
 * days (the retention purge may have thinned out the results of an older moment: docs/evidence.md).
 */
function momentAsked(ctx: GovernanceContext, at: string | undefined, now: Date): Date {
  if (at === undefined) return now;
  const moment = new Date(at);
  if (moment.getTime() > now.getTime()) throw new InvalidInput([{ path: 'at', message: `at must not be in the future (now is ${now.toISOString()})` }]);
  const days = ctx.settings.retention.reports;
  const oldest = new Date(now.getTime() - days * DAY_MS);
  if (moment < oldest) {
    throw new InvalidInput([
      {
        path: 'at',
        message:
          `at is older than the history kept: results are kept retention.reports = ${days} days, ` +
          `so a pack can show ${oldest.toISOString()} at the earliest`,
      },
    ]);
  }
  return moment;
}

/** The names asked that are known, each; a 400 names those that are not. */
async function namesAsked(ctx: GovernanceContext, input: EvidenceInput): Promise<void> {
  const errors: FieldError[] = [];
  const environments = await new EnvironmentRepository(ctx.database).names();
  input.environments?.forEach((name, i) => {
    if (!environments.includes(name)) errors.push({ path: `environments.${i}`, message: `unknown environment "${name}"; known: ${environments.join(', ')}` });
  });
  const types = new ResourceTypeRepository(ctx.database);
  for (const [i, name] of (input.resourceTypes ?? []).entries()) {
    if (!(await types.find(name))) errors.push({ path: `resourceTypes.${i}`, message: `unknown resource type "${name}"` });
  }
  if (errors.length > 0) throw new InvalidInput(errors);
}

/** Sends the packs' messages to the evaluation queue; those that reached it are marked sent (the sweeper sends the others). */
async function sendPacks(ctx: GovernanceContext, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const sent = await (await ctx.queue()).send(ids, 'evidenceId');
  await new EvidenceRepository(ctx.database).markSent(sent);
}

/** Stores the request of a pack and sends its message to the queue; the worker builds it (buildEvidence). */
export async function requestEvidence(ctx: GovernanceContext, input: EvidenceInput, subject: string, now = new Date()): Promise<EvidencePack> {
  const at = momentAsked(ctx, input.at, now);
  await namesAsked(ctx, input);
  const unique = (names: string[] | undefined) => (names ? [...new Set(names)].sort() : null);
  const row = await new EvidenceRepository(ctx.database).create({
    at,
    environments: unique(input.environments),
    resourceTypes: unique(input.resourceTypes),
    requestedBy: subject,
  });
  await sendPacks(ctx, [row.id]);
  return evidenceOf(row);
}

export async function getEvidence(ctx: GovernanceContext, id: string): Promise<EvidencePack> {
  const row = await new EvidenceRepository(ctx.database).find(id);
  if (!row) throw new NotFoundError(`No evidence pack has the id ${id}`);
  return evidenceOf(row);
}

export async function listEvidence(ctx: GovernanceContext, limit: number, offset: number): Promise<{ data: EvidencePack[]; total: number }> {
  const { rows, total } = await new EvidenceRepository(ctx.database).list(limit, offset);
  return { data: rows.map(evidenceOf), total };
}

/** The bytes a `Range` header asks of a zip of `size` bytes ([first, last], at most PACK_PART_BYTES); the first part without one. */
function rangeOf(header: string | undefined, size: number): { first: number; last: number; partial: boolean } {
  const whole = { first: 0, last: Math.min(size, PACK_PART_BYTES) - 1, partial: size > PACK_PART_BYTES };
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return whole;
  const [first, last] =
    match[1] === '' ? [Math.max(0, size - Number(match[2])), size - 1] : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
  if (first >= size || last < first) {
    throw new HttpProblem(416, 'Range Not Satisfiable', `The pack has ${size} bytes: bytes ${match[1]}-${match[2]} are not within it`, {
      headers: { 'content-range': `bytes */${size}` },
    });
  }
  return { first, last: Math.min(last, first + PACK_PART_BYTES - 1), partial: true };
}

/** The zip, or the part of it `range` asks (206); the first part of one larger than an answer carries (206 too). */
export async function packPart(
  ctx: GovernanceContext,
  id: string,
  range: string | undefined,
): Promise<{ bytes: Uint8Array; headers: Record<string, string>; partial: boolean }> {
  const pack = await getEvidence(ctx, id);
  if (pack.status !== 'completed' || pack.size === null) throw new ConflictError(`The evidence pack is ${pack.status}: its zip can be read once it completed`);
  const { first, last, partial } = rangeOf(range, pack.size);
  const bytes = await new EvidenceRepository(ctx.database).packBytes(id, pack.attempts, first, last);
  const headers: Record<string, string> = {
    'content-type': 'application/zip',
    'content-disposition': `attachment; filename="evidence-${pack.at.replace(/[:.]/g, '-')}-${id.slice(0, 8)}.zip"`,
    'accept-ranges': 'bytes',
    ...(partial ? { 'content-range': `bytes ${first}-${last}/${pack.size}` } : {}),
  };
  return { bytes, headers, partial };
}

/**
 * The worker's part: builds the pack and stores it. A build that fails leaves the pack pending, to
 * be sent again by the sweeper, until it was tried `evaluation.queue.max-receives` times: then it
 * failed, with the reason. A pack already built, or being built by another worker, is left alone.
 */
export async function buildEvidence(ctx: GovernanceContext, id: string): Promise<void> {
  const packs = new EvidenceRepository(ctx.database);
  const pack = await packs.claim(id, LEASE_MS);
  if (!pack) return;
  try {
    const built = await buildPack(ctx, pack, (part, bytes) => packs.addPart(id, pack.attempts, part, bytes));
    if (!(await packs.complete(id, pack.attempts, { sha256: built.sha256, size: built.size, summary: { ...built.summary } }))) {
      logger.warn({ evidenceId: id, attempt: pack.attempts }, 'an evidence pack was built after its lease ran out: another build has it');
      return;
    }
    logger.info({ evidenceId: id, bytes: built.size, ...built.summary }, 'evidence pack built');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const status = await packs.attemptFailed(id, pack.attempts, reason, maxReceivesOf(ctx.settings));
    logger.warn({ err: error, evidenceId: id, attempts: pack.attempts, status }, 'an evidence pack could not be built');
  }
}

/**
 * The sweeper's part: sends the packs whose message did not reach the queue, or reached it a lease
 * ago with no build taking it, whose last attempt failed, or whose build stopped.
 */
export async function sweepEvidence(ctx: GovernanceContext, limit = 20): Promise<number> {
  const ids = await new EvidenceRepository(ctx.database).toSend(limit, maxReceivesOf(ctx.settings), LEASE_MS);
  await sendPacks(ctx, ids);
  return ids.length;
}

/** The dead-letter path: the pack's message kept failing (its worker kept dying); it fails. */
export async function deadLetterEvidence(ctx: GovernanceContext, id: string): Promise<void> {
  await new EvidenceRepository(ctx.database).fail(id, 'its build did not end: the worker that built it kept stopping (out of time or memory)');
  logger.warn({ evidenceId: id }, 'an evidence pack kept failing: it was dead-lettered');
}
