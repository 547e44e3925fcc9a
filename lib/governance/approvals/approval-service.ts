import { sameIdentity } from '#lib/auth/identity';
import type { Scope } from '#lib/authorization/access';
import type { Approval, ApprovalDiff, ApprovalFilters } from '#lib/authorization/approval';
import { fourEyesEnabled } from '#lib/authorization/caller-access';
import { inTransaction } from '#lib/db/transaction';
import { ConflictError, ForbiddenError, NotFoundError } from '#lib/errors/domain-errors';
import { listBody, type Pagination } from '#lib/http/pagination';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';

import type { GovernanceContext } from '../context';
import type { ExceptionInput } from '../exceptions/exception';
import { checkNewException, createException, scopesOfNewException } from '../exceptions/exception-service';
import { impactForApproval } from '../impact/impact-service';
import type { EntityKind } from '../policies/entity';
import { readEntityRow, represent, scopesOfMove } from '../policies/entity-reading';
import { EntityRepository, type EntityRow } from '../policies/entity-repository';
import { changeStatusOfEntity, publishEntity } from '../policies/entity-service';
import { ACTIVE_STATUSES, allowedMoves, canMove, type EntityStatus } from '../policies/lifecycle';
import type { RolloutInput } from '../rollouts/rollout';
import { rolloutTarget, scheduleRollout } from '../rollouts/rollout-service';
import { entityDiff, exceptionDiff, fingerprintOf } from './approval-diff';
import { decide, record, representApproval } from './approval-records';
import { ApprovalRepository, type ApprovalRow } from './approval-repository';
import { applySettingsRequest, isSettingsKind } from './settings-requests';

/** What a publish or a move request pins: the version, what it enforced when asked, and the move. */
interface EntityRequest {
  version: number;
  fingerprint: string;
  from: EntityStatus;
  to: EntityStatus;
}

/** The version enabled or in grace now, if any. */
async function enforcedVersion(ctx: GovernanceContext, kind: EntityKind, id: string): Promise<EntityRow | undefined> {
  const versions = await new EntityRepository(ctx.database).versions(kind, id);
  return versions.find((version) => ACTIVE_STATUSES.includes(version.status));
}

async function requestEntityChange(
  ctx: GovernanceContext,
  kind: EntityKind,
  requested: EntityRow,
  to: EntityStatus,
  approvalKind: 'publish' | 'status',
  requester: string,
) {
  const enforced = await enforcedVersion(ctx, kind, requested.id);
  const representation = represent(requested);
  const request: EntityRequest = { version: requested.version, fingerprint: fingerprintOf(representation), from: requested.status, to };
  const diff = await withImpact(ctx, kind, requested, to, entityDiff(enforced ? represent(enforced) : null, representation, to), requester);
  return record(
    ctx,
    { kind: approvalKind, entity: requested, resourceType: requested.resourceType, environment: requested.environment, request: { ...request }, diff },
    requester,
  );
}

/** A request that would enable a version carries its impact report, so that an approver decides on figures. */
async function withImpact(
  ctx: GovernanceContext,
  kind: EntityKind,
  version: EntityRow,
  to: EntityStatus,
  diff: ApprovalDiff,
  requester: string,
): Promise<ApprovalDiff> {
  return to === 'enabled' ? { ...diff, impactReportId: await impactForApproval(ctx, kind, version, requester) } : diff;
}

/** The 202 answer of a change that became a request: the request, at its Location. */
export const requestedAnswer = (approval: Approval) => ({
  status: 202,
  body: { approvalId: approval.id, ...approval },
  headers: { location: `/v1/computational-governance/approvals/${approval.id}` },
});

/** Whether changes of what the gate enforces are requests (authorization.four-eyes.enabled). */
export const fourEyesOn = (ctx: GovernanceContext) => fourEyesEnabled(ctx.settings);

/** Four-eyes: publishing the newest version becomes a request. */
export async function requestPublish(ctx: GovernanceContext, kind: EntityKind, id: string, requester: string): Promise<Approval> {
  return requestEntityChange(ctx, kind, await readEntityRow(ctx, kind, id), 'enabled', 'publish', requester);
}

/** Four-eyes: a status move becomes a request (a move the lifecycle refuses is 409 now, not at approval). */
export async function requestStatusMove(
  ctx: GovernanceContext,
  kind: EntityKind,
  id: string,
  move: { to: EntityStatus; version?: number },
  requester: string,
): Promise<Approval> {
  const current = await readEntityRow(ctx, kind, id, move.version);
  if (!canMove(current.status, move.to)) {
    const allowed = allowedMoves(current.status);
    throw new ConflictError(`A ${kind} in status ${current.status} cannot move to ${move.to}; allowed: ${allowed.length ? allowed.join(', ') : 'none'}`, {
      currentStatus: current.status,
      allowedStatuses: allowed,
    });
  }
  return requestEntityChange(ctx, kind, current, move.to, 'status', requester);
}

/** Four-eyes: a dated rollout (the version in grace to enabled at a date) becomes a request, checked now as scheduling it would be. */
export async function requestRollout(ctx: GovernanceContext, kind: EntityKind, id: string, input: RolloutInput, requester: string): Promise<Approval> {
  const target = await rolloutTarget(ctx, kind, id, input);
  const enforced = await enforcedVersion(ctx, kind, id);
  const representation = represent(target);
  const request = { version: target.version, fingerprint: fingerprintOf(representation), from: target.status, to: 'enabled', ...input };
  const diff = await withImpact(ctx, kind, target, 'enabled', entityDiff(enforced ? represent(enforced) : null, representation, 'enabled'), requester);
  return record(ctx, { kind: 'rollout', entity: target, resourceType: target.resourceType, environment: target.environment, request, diff }, requester);
}

/**
 * Four-eyes: a new exception becomes a request, checked now as its creation would be; it waives nothing
 * until approved. `matchedResources`: how many resources its pattern matches now (reachOfNewException).
 */
export async function requestException(ctx: GovernanceContext, input: ExceptionInput, requester: string, matchedResources: number): Promise<Approval> {
  const { entity } = await checkNewException(ctx, input);
  const environment = input.environment ?? null;
  return record(
    ctx,
    { kind: 'exception', entity, resourceType: entity.resourceType, environment, request: { ...input }, diff: exceptionDiff(input, matchedResources) },
    requester,
  );
}

async function readApproval(ctx: GovernanceContext, id: string): Promise<ApprovalRow> {
  const row = await new ApprovalRepository(ctx.database).find(id);
  if (!row) throw new NotFoundError(`No request has the id ${id}`);
  return row;
}

export const getApproval = async (ctx: GovernanceContext, id: string): Promise<Approval> => representApproval(await readApproval(ctx, id));

export async function listApprovals(ctx: GovernanceContext, filters: ApprovalFilters, pagination: Pagination) {
  const { rows, total } = await new ApprovalRepository(ctx.database).list(filters, pagination);
  return listBody(rows.map(representApproval), pagination, total);
}

/**
 * What deciding a request changes, as it would be applied now: every version a move or publish puts
 * into or takes out of force, or what an exception waives (docs/authorization.md). The decider needs
 * permission over each.
 */
export async function scopesOfApproval(ctx: GovernanceContext, id: string): Promise<Scope[]> {
  const row = await readApproval(ctx, id);
  // Decided or ended, it changes nothing any more (deciding it is a 409): where it was asked.
  if (row.status !== 'pending') return [{ resourceType: row.resourceType, environment: row.environment }];
  if (row.kind === 'exception') return scopesOfNewException(ctx, row.request as ExceptionInput);
  // The service's settings: a role binding or a model configuration everywhere, a resource type as a whole.
  if (isSettingsKind(row.kind)) return [{ resourceType: row.resourceType, environment: null }];
  const { version, to } = row.request as unknown as Partial<EntityRequest>;
  const { kind, entityId } = entityOf(row);
  return scopesOfMove(ctx, kind, entityId, to ?? 'enabled', version);
}

/** The request as it must be to be decided by `decider`: pending, and someone else's. */
async function decidable(ctx: GovernanceContext, id: string, decider: string): Promise<ApprovalRow> {
  const row = await readApproval(ctx, id);
  // The same person however the name is written (lib/auth/identity.ts).
  if (sameIdentity(row.requestedBy, decider))
    throw new ForbiddenError('Four-eyes: a request is decided by someone other than the person who made it, whatever their roles', {
      rule: 'four-eyes',
      requestedBy: row.requestedBy,
    });
  if (row.status !== 'pending') throw new ConflictError(`The request is ${row.status} already`, { requestStatus: row.status });
  return row;
}

const changedSinceRequest = () =>
  new ConflictError('What the request concerns changed since it was made (edited, moved or published): reject it and ask again');

/** The version still enforces what the request pinned, in the status it was asked from. */
function requireAsRequested(row: EntityRow, request: EntityRequest) {
  if (row.version !== request.version || fingerprintOf(represent(row)) !== request.fingerprint) throw changedSinceRequest();
}

/**
 * Approves the request of another person: the change is applied, with the requester as its author,
 * in the same transaction as the decision, so either both are written or neither.
 */
export async function approve(ctx: GovernanceContext, id: string, decider: string, comment: string | null): Promise<Approval> {
  const row = await decidable(ctx, id, decider);
  const approved = isSettingsKind(row.kind)
    ? await applySettingsRequest(ctx, row, { decidedBy: decider, comment })
    : await applyEntityRequest(ctx, row, decider, comment);
  dispatchInBackground(ctx);
  return representApproval(approved);
}

/** The policy or metric a request of the first four kinds concerns. */
function entityOf(row: ApprovalRow): { kind: EntityKind; entityId: string } {
  if (!row.entityKind || !row.entityId) throw new Error(`The ${row.kind} request ${row.id} names no policy or metric`);
  return { kind: row.entityKind, entityId: row.entityId };
}

async function applyEntityRequest(ctx: GovernanceContext, row: ApprovalRow, decider: string, comment: string | null): Promise<ApprovalRow> {
  const { id } = row;
  const { kind, entityId } = entityOf(row);
  let approved: ApprovalRow | undefined;
  if (row.kind === 'exception') {
    await createException(ctx, row.request as ExceptionInput, row.requestedBy, {
      approvedBy: decider,
      alongside: async (tx, exception) => {
        approved = await decide(ctx, tx, id, { status: 'approved', decidedBy: decider, comment, outcome: { exceptionId: exception.id } });
      },
    });
  } else {
    const request = row.request as unknown as EntityRequest;
    const current = await readEntityRow(ctx, kind, entityId, row.kind === 'publish' ? undefined : request.version);
    requireAsRequested(current, request);
    if (current.status !== request.from) throw changedSinceRequest();
    if (row.kind === 'rollout') {
      const { enableAt, notifyDaysBefore } = row.request as unknown as RolloutInput;
      approved = await inTransaction(ctx.database, 'approve rollout', async (tx) => {
        const rollout = await scheduleRollout(ctx, kind, entityId, { enableAt, notifyDaysBefore }, row.requestedBy, { tx, approvedBy: decider });
        return decide(ctx, tx, id, { status: 'approved', decidedBy: decider, comment, outcome: { rolloutId: rollout.id, version: rollout.version, enableAt } });
      });
    } else if (row.kind === 'publish') {
      await publishEntity(ctx, kind, entityId, row.requestedBy, async (tx, published, reportId) => {
        requireAsRequested(published, request);
        approved = await decide(ctx, tx, id, {
          status: 'approved',
          decidedBy: decider,
          comment,
          outcome: { version: published.version, evaluationReportId: reportId },
        });
      });
    } else {
      await changeStatusOfEntity(ctx, kind, entityId, {
        to: request.to,
        subject: row.requestedBy,
        version: request.version,
        alongside: async (tx, moved) => {
          requireAsRequested(moved, request);
          approved = await decide(ctx, tx, id, { status: 'approved', decidedBy: decider, comment, outcome: { version: moved.version, status: moved.status } });
        },
      });
    }
  }
  return approved as ApprovalRow;
}

/** Rejects the request of another person: nothing changes. */
export async function reject(ctx: GovernanceContext, id: string, decider: string, comment: string | null): Promise<Approval> {
  await decidable(ctx, id, decider);
  const rejected = await inTransaction(ctx.database, 'reject request', (tx) =>
    decide(ctx, tx, id, { status: 'rejected', decidedBy: decider, comment, outcome: null }),
  );
  dispatchInBackground(ctx);
  return representApproval(rejected);
}
