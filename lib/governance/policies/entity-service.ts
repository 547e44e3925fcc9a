import { type Database, getDatabase } from '#lib/db/client';
import { inTransaction, type Transaction } from '#lib/db/transaction';
import { ConflictError, type FieldError, InvalidInput } from '#lib/errors/domain-errors';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { announceKnowledgeChange } from '#lib/outbox/knowledge-changes';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { callableUrlProblem } from '#lib/platform/http-client';
import { notificationOf } from '#lib/platform/notifications';
import { getSettings } from '#lib/settings/index';

import { checkCueScript } from '../engines/engines';
import { LlmAnswerRepository } from '../engines/llm/llm-answer-repository';
import { requireKnownEnvironment } from '../environments/environment-service';
import { environmentsOf, type QueuedEvaluation, recordQueuedEvaluation, sendTasks } from '../evaluation/queued-evaluation';
import { ExceptionRepository } from '../exceptions/exception-repository';
import { ResourceTypeRepository } from '../resource-types/resource-type-repository';
import { CronScheduleRepository } from '../scheduling/cron-schedule-repository';
import type { EntityContent, EntityInput, EntityKind, EntityRepresentation, PublishedEntity } from './entity';
import { notFound, NOUN, readEntityRow, repository, represent } from './entity-reading';
import { EntityRepository, type EntityRow } from './entity-repository';
import { allowedMoves, canMove, type EntityStatus } from './lifecycle';

/**
 * What only the database and the engine can judge: the type and environment exist, the CUE compiles.
 * The content to store: the input and, for CUE, the evaluator the check chose.
 */
async function checkReferences(input: EntityInput): Promise<EntityContent> {
  const errors: FieldError[] = [];
  const database = await getDatabase();
  if (!(await new ResourceTypeRepository(database).find(input.resourceType))) {
    errors.push({ path: 'resourceType', message: `no resource type is named "${input.resourceType}"` });
  }
  if (input.environment !== null) {
    try {
      await requireKnownEnvironment(input.environment, 'environment');
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      errors.push(...error.errors);
    }
  }
  const urlProblem = input.remoteEngineUrl ? callableUrlProblem(await getSettings(), input.remoteEngineUrl) : undefined;
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

export async function createEntity(kind: EntityKind, input: EntityInput, subject: string): Promise<EntityRepresentation> {
  const content = await checkReferences(input);
  const database = await getDatabase();
  const settings = await getSettings();
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
  dispatchInBackground();
  await announceKnowledgeChange({ type: kind, id: row.id });
  return represent(row);
}

/**
 * A creation that failed (invalid or conflicting) sends the failure event, when notifications are
 * on. Never fails the call: the caller already has its answer.
 */
export async function notifyCreationFailed(
  kind: EntityKind,
  body: unknown,
  refusal: { message: string; errors?: readonly FieldError[] },
  subject: string,
): Promise<void> {
  try {
    const settings = await getSettings();
    const name = typeof (body as { name?: unknown })?.name === 'string' ? (body as { name: string }).name : null;
    const reasons = refusal.errors?.map((e) => `${e.path}: ${e.message}`).join('; ') || refusal.message;
    const notification = notificationOf(
      settings,
      'failure-event',
      { id: null, name, type: kind },
      `${subject} could not create the ${NOUN[kind]}${name ? ` "${name}"` : ''}: ${reasons}`,
    );
    if (!notification) return;
    await new OutboxRepository(await getDatabase()).enqueue('notification', notification);
    dispatchInBackground();
  } catch (error) {
    logger.error({ err: error }, `could not record the failure notification of a ${NOUN[kind]} creation`);
  }
}

/**
 * Edits the newest version: a draft changes in place; any other status keeps its content (results
 * name it) and the edit becomes the next version, a draft.
 */
export async function updateEntity(
  kind: EntityKind,
  id: string,
  input: EntityInput,
  subject: string,
): Promise<{ entity: EntityRepresentation; newVersion: boolean }> {
  const current = await readEntityRow(kind, id);
  const content = await checkReferences(input);
  const entities = await repository();
  const row =
    current.status === 'draft'
      ? await entities.updateDraft(kind, id, current.version, content, subject)
      : await entities.createNextVersion(kind, current, content, subject);
  if (!row) throw new ConflictError(`The ${NOUN[kind]} changed while it was being edited; read it again and retry`);
  await announceKnowledgeChange({ type: kind, id });
  return { entity: represent(row), newVersion: row.version !== current.version };
}

/** A lifecycle move of one version (the newest unless `version` is given); illegal moves are 409. */
export async function changeStatusOfEntity(
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
  const current = await readEntityRow(kind, id, version);
  if (!canMove(current.status, to)) {
    const allowed = allowedMoves(current.status);
    throw new ConflictError(`A ${NOUN[kind]} in status ${current.status} cannot move to ${to}; allowed: ${allowed.length ? allowed.join(', ') : 'none'}`, {
      currentStatus: current.status,
      allowedStatuses: allowed,
    });
  }
  const database = await getDatabase();
  const { timeZone } = (await getSettings()).cronPolicies;
  const row = await new EntityRepository(database).changeStatus(
    { kind, id, version: current.version, from: current.status, to, subject },
    async (tx, moved) => {
      await followSchedule(database, id, timeZone, tx);
      await alongside?.(tx, moved);
    },
  );
  if (!row) throw new ConflictError(`The ${NOUN[kind]} changed status meanwhile; read it again and retry`);
  await announceKnowledgeChange({ type: kind, id });
  return represent(row);
}

/** A cron entity is scheduled while a version of it is enabled, by that version's expression; a move keeps it so in its transaction. */
async function followSchedule(database: Database, id: string, timeZone: string, tx: Transaction): Promise<void> {
  await new CronScheduleRepository(database).follow(id, timeZone, tx);
}

/**
 * Publish: the newest version becomes enabled, from any status. With `evaluation.enable-on-publish`,
 * an evaluation of it against every resource of every environment it applies to is recorded in
 * the same transaction (also when it was enabled already: publishing again evaluates again) and
 * its tasks are sent to the queue; its report id is in the answer. A passive entity has nothing to run.
 */
/**
 * Publishes the newest version. `alongside` runs in the transaction of the publish (an approval's
 * own row), with the version published and the id of the evaluation it started.
 */
export async function publishEntity(
  kind: EntityKind,
  id: string,
  subject: string,
  alongside?: (tx: Transaction, published: EntityRow, reportId: string | null) => Promise<void>,
): Promise<PublishedEntity> {
  const settings = await getSettings();
  const database = await getDatabase();
  const current = await readEntityRow(kind, id);
  const evaluate = settings.evaluation.enableOnPublish && current.engine !== null;
  const environments = evaluate ? await environmentsOf(database, current) : [];
  // What was enforced before (the same version, published again): its newest results tell what this publish newly fails.
  const enforced = (await new EntityRepository(database).versions(kind, id)).find((version) => version.status === 'enabled' || version.status === 'grace');
  let queued: QueuedEvaluation | undefined;
  const recordEvaluation = async (tx: Transaction, row: EntityRow) => {
    queued = await recordQueuedEvaluation(database, tx, row, 'publish', environments, subject, enforced?.version);
  };
  let row: EntityRow | undefined = current;
  if (current.status !== 'enabled') {
    row = await new EntityRepository(database).changeStatus(
      { kind, id, version: current.version, from: current.status, to: 'enabled', subject },
      async (tx, moved) => {
        await followSchedule(database, id, settings.cronPolicies.timeZone, tx);
        if (evaluate) await recordEvaluation(tx, moved);
        await alongside?.(tx, moved, queued?.reportId ?? null);
      },
    );
    if (!row) throw new ConflictError(`The ${NOUN[kind]} changed status meanwhile; read it again and retry`);
  } else {
    await inTransaction(database, 'publish again', async (tx) => {
      await followSchedule(database, id, settings.cronPolicies.timeZone, tx);
      if (evaluate) await recordEvaluation(tx, current);
      await alongside?.(tx, current, queued?.reportId ?? null);
    });
  }
  if (queued) await sendTasks(queued.taskIds);
  await announceKnowledgeChange({ type: kind, id });
  return { ...represent(row), evaluationReportId: queued?.reportId ?? null };
}

export async function deleteEntity(kind: EntityKind, id: string): Promise<void> {
  const database = await getDatabase();
  const outcome = await new EntityRepository(database).delete(kind, id, async (tx) => {
    await new CronScheduleRepository(database).remove(id, tx);
    await new LlmAnswerRepository(database).forget(id, tx);
    await new ExceptionRepository(database).forget(id, tx);
  });
  if (outcome === 'missing') throw notFound(kind, id);
  if (outcome === 'active')
    throw new ConflictError(`Only draft and disabled ${NOUN[kind] === 'policy' ? 'policies' : 'metrics'} can be deleted; disable it first`);
  await announceKnowledgeChange({ type: kind, id });
}
