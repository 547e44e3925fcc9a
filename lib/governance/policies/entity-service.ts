import { inTransaction, type Transaction } from '#lib/db/transaction';
import { ConflictError, type FieldError, InvalidInput } from '#lib/errors/domain-errors';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { announceKnowledgeChange } from '#lib/outbox/knowledge-changes';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { callableUrlProblem } from '#lib/platform/http-client';
import { notificationOf } from '#lib/platform/notifications';

import type { GovernanceContext, PublishStarted } from '../context';
import { checkCueScript } from '../engines/engines';
import { requireKnownEnvironment } from '../environments/environment-service';
import { ResourceTypeRepository } from '../resource-types/resource-type-repository';
import type { EntityContent, EntityInput, EntityKind, EntityRepresentation, PublishedEntity } from './entity';
import { notFound, NOUN, readEntityRow, represent } from './entity-reading';
import { EntityRepository, type EntityRow } from './entity-repository';
import { allowedMoves, canMove, type EntityStatus } from './lifecycle';

// The writes of policies and metrics. What other areas do when one changes (its schedule, the
// evaluation a publish starts, what they keep of a deleted one) they do through ctx.hooks.

/**
 * What only the database and the engine can judge: the type and environment exist, the CUE compiles.
 * The content to store: the input and, for CUE, the evaluator the check chose.
 */
async function checkReferences(ctx: GovernanceContext, input: EntityInput): Promise<EntityContent> {
  const errors: FieldError[] = [];
  if (!(await new ResourceTypeRepository(ctx.database).find(input.resourceType))) {
    errors.push({ path: 'resourceType', message: `no resource type is named "${input.resourceType}"` });
  }
  if (input.environment !== null) {
    try {
      await requireKnownEnvironment(ctx, input.environment, 'environment');
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      errors.push(...error.errors);
    }
  }
  const urlProblem = input.remoteEngineUrl ? callableUrlProblem(ctx.settings, input.remoteEngineUrl) : undefined;
  if (urlProblem) errors.push({ path: 'remoteEngineUrl', message: `remoteEngineUrl ${urlProblem}` });
  let content: EntityContent = { ...input, evaluator: null, evaluatorReason: null };
  if (input.engine === 'cue' && input.cueScript) {
    const check = await checkCueScript(input.cueScript);
    if (check.ok) {
      content = { ...input, evaluator: check.evaluator, evaluatorReason: check.evaluatorReason };
    } else {
      const where = check.line === undefined ? '' : ` (line ${check.line}${check.column === undefined ? '' : `, column ${check.column}`})`;
      errors.push({
        path: 'cueScript',
        message: check.unfinished ? `the script did not finish being checked: ${check.message}` : `CUE does not compile${where}: ${check.message}`,
        ...(check.line === undefined ? {} : { line: check.line }),
        ...(check.column === undefined ? {} : { column: check.column }),
      });
    }
  }
  if (errors.length > 0) throw new InvalidInput(errors);
  return content;
}

export async function createEntity(ctx: GovernanceContext, kind: EntityKind, input: EntityInput, subject: string): Promise<EntityRepresentation> {
  const content = await checkReferences(ctx, input);
  const { database, settings } = ctx;
  const row = await inTransaction(database, `create ${kind}`, async (tx) => {
    const created = await new EntityRepository(database).create(kind, content, subject, tx);
    const notification = notificationOf(
      settings,
      kind === 'policy' ? 'new-policy-event' : 'new-metric-event',
      { id: created.id, name: created.name, type: kind },
      `${subject} created the ${NOUN[kind]} "${created.name}"`,
    );
    if (notification) await new OutboxRepository(database).enqueue('notification', notification, tx);
    return created;
  });
  dispatchInBackground(ctx);
  await announceKnowledgeChange(ctx, { type: kind, id: row.id });
  return represent(row);
}

/**
 * A creation that failed (invalid or conflicting) sends the failure event, when notifications are
 * on. Never fails the call: the caller already has its answer.
 */
export async function notifyCreationFailed(
  ctx: GovernanceContext,
  kind: EntityKind,
  body: unknown,
  refusal: { message: string; errors?: readonly FieldError[] },
  subject: string,
): Promise<void> {
  try {
    const { settings } = ctx;
    const name = typeof (body as { name?: unknown })?.name === 'string' ? (body as { name: string }).name : null;
    const reasons = refusal.errors?.map((e) => `${e.path}: ${e.message}`).join('; ') || refusal.message;
    const notification = notificationOf(
      settings,
      'failure-event',
      { id: null, name, type: kind },
      `${subject} could not create the ${NOUN[kind]}${name ? ` "${name}"` : ''}: ${reasons}`,
    );
    if (!notification) return;
    await new OutboxRepository(ctx.database).enqueue('notification', notification);
    dispatchInBackground(ctx);
  } catch (error) {
    logger.error({ err: error }, `could not record the failure notification of a ${NOUN[kind]} creation`);
  }
}

/**
 * Edits the newest version: a draft changes in place; any other status keeps its content (results
 * name it) and the edit becomes the next version, a draft.
 */
export async function updateEntity(
  ctx: GovernanceContext,
  kind: EntityKind,
  id: string,
  input: EntityInput,
  subject: string,
): Promise<{ entity: EntityRepresentation; newVersion: boolean }> {
  const current = await readEntityRow(ctx, kind, id);
  const content = await checkReferences(ctx, input);
  const entities = new EntityRepository(ctx.database);
  const row =
    current.status === 'draft'
      ? await entities.updateDraft(kind, id, current.version, content, subject)
      : await entities.createNextVersion(kind, current, content, subject);
  if (!row) throw new ConflictError(`The ${NOUN[kind]} changed while it was being edited; read it again and retry`);
  await announceKnowledgeChange(ctx, { type: kind, id });
  return { entity: represent(row), newVersion: row.version !== current.version };
}

/** A lifecycle move of one version (the newest unless `version` is given); illegal moves are 409. */
export async function changeStatusOfEntity(
  ctx: GovernanceContext,
  kind: EntityKind,
  id: string,
  {
    to,
    subject,
    version,
    alongside,
  }: {
    to: EntityStatus;
    subject: string;
    version?: number;
    /** Runs in the transaction of the move (an approval's own row), after it. */
    alongside?: (tx: Transaction, moved: EntityRow) => Promise<void>;
  },
): Promise<EntityRepresentation> {
  const current = await readEntityRow(ctx, kind, id, version);
  if (!canMove(current.status, to)) {
    const allowed = allowedMoves(current.status);
    throw new ConflictError(`A ${NOUN[kind]} in status ${current.status} cannot move to ${to}; allowed: ${allowed.length ? allowed.join(', ') : 'none'}`, {
      currentStatus: current.status,
      allowedStatuses: allowed,
    });
  }
  const row = await new EntityRepository(ctx.database).changeStatus(
    { kind, id, version: current.version, from: current.status, to, subject },
    async (tx, moved) => {
      await statusChanged(ctx, tx, moved);
      await alongside?.(tx, moved);
    },
  );
  if (!row) throw new ConflictError(`The ${NOUN[kind]} changed status meanwhile; read it again and retry`);
  await announceKnowledgeChange(ctx, { type: kind, id });
  return represent(row);
}

async function statusChanged(ctx: GovernanceContext, tx: Transaction, entity: EntityRow): Promise<void> {
  for (const hook of ctx.hooks.statusChanged) await hook(ctx, tx, entity);
}

/**
 * Publish: the newest version becomes enabled, from any status (publishing an enabled version
 * again runs the hooks again). The `published` hooks run in the same transaction (an evaluation
 * of it is recorded there, and its tasks are sent once committed); the report id of what they
 * started is in the answer. `alongside` runs in that transaction too (an approval's own row),
 * with the version published and that report id.
 */
export async function publishEntity(
  ctx: GovernanceContext,
  kind: EntityKind,
  id: string,
  subject: string,
  alongside?: (tx: Transaction, published: EntityRow, reportId: string | null) => Promise<void>,
): Promise<PublishedEntity> {
  const { database } = ctx;
  const current = await readEntityRow(ctx, kind, id);
  // What was enforced before (the same version, published again): its newest results tell what this publish newly fails.
  const enforced = (await new EntityRepository(database).versions(kind, id)).find((version) => version.status === 'enabled' || version.status === 'grace');
  const started: PublishStarted[] = [];
  const published = async (tx: Transaction, row: EntityRow) => {
    await statusChanged(ctx, tx, row);
    for (const hook of ctx.hooks.published) {
      const start = await hook(ctx, tx, row, { subject, enforcedVersion: enforced?.version });
      if (start) started.push(start);
    }
    await alongside?.(tx, row, started[0]?.reportId ?? null);
  };
  let row: EntityRow | undefined = current;
  if (current.status !== 'enabled') {
    row = await new EntityRepository(database).changeStatus({ kind, id, version: current.version, from: current.status, to: 'enabled', subject }, published);
    if (!row) throw new ConflictError(`The ${NOUN[kind]} changed status meanwhile; read it again and retry`);
  } else {
    await inTransaction(database, 'publish again', (tx) => published(tx, current));
  }
  for (const start of started) await start.afterCommit();
  await announceKnowledgeChange(ctx, { type: kind, id });
  return { ...represent(row), evaluationReportId: started[0]?.reportId ?? null };
}

export async function deleteEntity(ctx: GovernanceContext, kind: EntityKind, id: string): Promise<void> {
  const outcome = await new EntityRepository(ctx.database).delete(kind, id, async (tx) => {
    for (const hook of ctx.hooks.deleted) await hook(ctx, tx, id);
  });
  if (outcome === 'missing') throw notFound(kind, id);
  if (outcome === 'active')
    throw new ConflictError(`Only draft and disabled ${NOUN[kind] === 'policy' ? 'policies' : 'metrics'} can be deleted; disable it first`);
  await announceKnowledgeChange(ctx, { type: kind, id });
}
