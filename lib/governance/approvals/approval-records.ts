import type { Approval, ApprovalDiff, ApprovalKind } from '#lib/authorization/approval';
import { inTransaction, type Transaction } from '#lib/db/transaction';
import { ConflictError } from '#lib/errors/domain-errors';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { notificationOf } from '#lib/platform/notifications';

import type { GovernanceContext } from '../context';
import type { EntityRow } from '../policies/entity-repository';
import { approversOf } from './approval-recipients';
import { ApprovalRepository, type ApprovalRow } from './approval-repository';

/** What a request concerns, whatever its kind. */
export type ApprovalTarget = Approval['target'];

/** A request's target: its own for a request of the settings, else its policy or metric. */
const targetOf = (row: ApprovalRow): ApprovalTarget =>
  row.target ? (row.target as ApprovalTarget) : { kind: row.entityKind ?? 'policy', id: row.entityId, name: row.entityName ?? '' };

export function representApproval(row: ApprovalRow): Approval {
  const entity =
    row.entityKind && row.entityId && row.entityName && row.resourceType
      ? { kind: row.entityKind, id: row.entityId, name: row.entityName, resourceType: row.resourceType, environment: row.environment }
      : null;
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    entity,
    target: targetOf(row),
    request: row.request,
    diff: row.diff as ApprovalDiff,
    requestedBy: row.requestedBy,
    requestedAt: row.requestedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    comment: row.comment,
    outcome: row.outcome,
  };
}

const NOUN: Record<ApprovalKind, string> = {
  publish: 'publishing',
  status: 'status move',
  exception: 'exception',
  rollout: 'rollout',
  'role-binding': 'change',
  'resource-type': 'change',
  'model-config': 'change',
};

/** A new request: of a policy or metric (`entity`), or of the service's settings (`target`). */
export interface NewRequest {
  readonly kind: ApprovalKind;
  readonly entity?: EntityRow;
  readonly target?: ApprovalTarget;
  /** Where it acts: the approvers in this scope are told of it. */
  readonly resourceType: string | null;
  readonly environment: string | null;
  readonly request: Record<string, unknown>;
  readonly diff: ApprovalDiff;
  /** A secret the request carries, encrypted (never answered). */
  readonly sealed?: string;
}

/** Writes the request and tells the approvers in its scope, in one transaction. */
export async function record(ctx: GovernanceContext, asked: NewRequest, requester: string): Promise<Approval> {
  const { database, settings } = ctx;
  const approvals = new ApprovalRepository(database);
  const { entity, kind } = asked;
  const pending = entity && kind !== 'exception' ? await approvals.pendingFor(kind, entity.id) : undefined;
  if (pending && entity)
    throw new ConflictError(`A ${NOUN[kind]} request of this ${entity.kind} is pending already: decide it first`, { approvalId: pending.id });
  const recipients = await approversOf(database, settings, { resourceType: asked.resourceType, environment: asked.environment }, requester);
  const row = await inTransaction(database, 'request approval', async (tx) => {
    const created = await approvals.create(
      {
        kind,
        entityKind: entity?.kind ?? null,
        entityId: entity?.id ?? null,
        entityName: entity?.name ?? null,
        resourceType: asked.resourceType,
        environment: asked.environment,
        target: entity ? null : (asked.target ?? null),
        sealed: asked.sealed ?? null,
        request: asked.request,
        diff: asked.diff,
        requestedBy: requester,
        expiresAt: new Date(Date.now() + settings.authorization.fourEyes.expiry),
      },
      tx,
    );
    const target = targetOf(created);
    await notify(
      ctx,
      tx,
      created,
      'approval-requested-event',
      `${requester} asks for approval of a ${NOUN[kind]} of the ${target.kind} "${target.name}"`,
      recipients,
    );
    return created;
  });
  dispatchInBackground(ctx);
  return representApproval(row);
}

async function notify(
  ctx: GovernanceContext,
  tx: Transaction,
  row: ApprovalRow,
  event: 'approval-requested-event' | 'approval-decided-event',
  message: string,
  recipients: { subjects: string[]; groups: string[] },
) {
  const target = targetOf(row);
  const notification = notificationOf(ctx.settings, event, { id: target.id, name: target.name, type: target.kind }, message);
  if (!notification) return;
  const approval = { id: row.id, kind: row.kind, status: row.status, requestedBy: row.requestedBy, decidedBy: row.decidedBy };
  await new OutboxRepository(ctx.database).enqueue('notification', { ...notification, recipients, approval }, tx);
}

/**
 * Records the decision, in the transaction given (the one that applies an approval), and tells the
 * requester through the outbox in the same transaction; 409 when the request was decided or expired meanwhile.
 */
export async function decide(
  ctx: GovernanceContext,
  tx: Transaction,
  id: string,
  decision: { status: 'approved' | 'rejected'; decidedBy: string; comment: string | null; outcome: Record<string, unknown> | null },
): Promise<ApprovalRow> {
  const row = await new ApprovalRepository(ctx.database).decide(id, decision, tx);
  if (!row) throw new ConflictError('The request was decided, or expired, meanwhile');
  const target = targetOf(row);
  const message = `${row.decidedBy} ${row.status} the ${NOUN[row.kind]} request of the ${target.kind} "${target.name}"`;
  await notify(ctx, tx, row, 'approval-decided-event', message, { subjects: [row.requestedBy], groups: [] });
  return row;
}
