import { inTransaction, type Transaction } from '#lib/db/transaction';
import { ConflictError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { notificationOf } from '#lib/platform/notifications';

import type { GovernanceContext } from '../context';
import type { EntityKind } from '../policies/entity';
import { EntityRepository, type EntityRow } from '../policies/entity-repository';
import { changeStatusOfEntity } from '../policies/entity-service';
import type { RolloutInput, RolloutRepresentation } from './rollout';
import { representRollout, RolloutRepository } from './rollout-repository';

/** The resources one notice lists at most (the count says how many there are). */
const LISTED = 100;

/** Who ends a rollout at its date, in its record (the move itself is the rollout's author's). */
const SCHEDULER = 'rollout-scheduler';

/** The version a rollout would move: the one in grace; the date must be ahead. */
export async function rolloutTarget(ctx: GovernanceContext, kind: EntityKind, id: string, input: RolloutInput): Promise<EntityRow> {
  if (Date.parse(input.enableAt) <= Date.now()) throw new InvalidInput([{ path: 'enableAt', message: 'enableAt must be in the future' }]);
  const versions = await new EntityRepository(ctx.database).versions(kind, id);
  if (versions.length === 0) throw new NotFoundError(`No ${kind} has the id ${id}`);
  const grace = versions.find((version) => version.status === 'grace');
  if (!grace) throw new ConflictError(`No version of this ${kind} is in grace: a rollout moves the version in grace to enabled at its date`);
  return grace;
}

/** Schedules the move of the version in grace to enabled at `enableAt` (in `tx`, an approval's, when given). */
export async function scheduleRollout(
  ctx: GovernanceContext,
  kind: EntityKind,
  id: string,
  input: RolloutInput,
  subject: string,
  options: { tx?: Pick<Transaction, 'insert'>; approvedBy?: string } = {},
): Promise<RolloutRepresentation> {
  const target = await rolloutTarget(ctx, kind, id, input);
  const row = await new RolloutRepository(ctx.database).schedule(
    {
      entityKind: kind,
      entityId: id,
      version: target.version,
      enableAt: new Date(input.enableAt),
      notifyDaysBefore: input.notifyDaysBefore,
      createdBy: subject,
      approvedBy: options.approvedBy ?? null,
    },
    options.tx,
  );
  if (!row) throw new ConflictError(`This ${kind} has a rollout scheduled already: cancel it first (DELETE .../rollout)`);
  return representRollout(row);
}

/** The entity's scheduled rollout, else its newest. */
export async function getRollout(ctx: GovernanceContext, kind: EntityKind, id: string): Promise<RolloutRepresentation> {
  const row = await new RolloutRepository(ctx.database).current(kind, id);
  if (!row) throw new NotFoundError(`This ${kind} has no rollout`);
  return representRollout(row);
}

/** Cancels the scheduled rollout: the version stays in grace. */
export async function cancelRollout(ctx: GovernanceContext, kind: EntityKind, id: string, subject: string): Promise<RolloutRepresentation> {
  const repository = new RolloutRepository(ctx.database);
  const current = await repository.current(kind, id);
  const cancelled = current?.status === 'scheduled' ? await repository.end(current.id, { status: 'cancelled', by: subject }) : undefined;
  if (!cancelled) throw new NotFoundError(`This ${kind} has no rollout scheduled`);
  return representRollout(cancelled);
}

class CancelledMeanwhile extends Error {}

/**
 * `notifyDaysBefore` ahead of its date, the owners of the resources failing the rollout's version
 * (failures that will count at its severity once it is enabled) each get one notification listing
 * theirs, written to the outbox in the transaction that marks the notice sent: once per rollout.
 * Answers how many notifications it wrote.
 */
async function noticeDueRollouts(ctx: GovernanceContext, limit: number): Promise<number> {
  const database = ctx.database;
  const settings = ctx.settings;
  if (!settings.notification.enabled) return 0;
  const repository = new RolloutRepository(database);
  const noticed = await inTransaction(database, 'rollout notices', async (tx) => {
    const due = await repository.takeDueNotices(limit, tx);
    const outbox = new OutboxRepository(database);
    let written = 0;
    for (const rollout of due) {
      const [entity] = await new EntityRepository(database).findVersions([{ id: rollout.entityId, version: rollout.version }], tx);
      const what = `${rollout.entityKind} ${entity ? `"${entity.name}" ` : ''}version ${rollout.version}`;
      for (const { owner, count, resources } of await repository.failingByOwner(rollout, tx)) {
        const notification = notificationOf(
          settings,
          'policy-rollout-notice-event',
          { id: rollout.entityId, name: entity?.name ?? null, type: rollout.entityKind },
          `The ${what} is enabled at ${rollout.enableAt.toISOString()}: ${count} resource${count === 1 ? '' : 's'} of ${owner} fail${count === 1 ? 's' : ''} it`,
        );
        if (!notification) continue;
        written++;
        await outbox.enqueue(
          'notification',
          { ...notification, owner, failing: count, resources: resources.slice(0, LISTED), rolloutId: rollout.id, enableAt: rollout.enableAt.toISOString() },
          tx,
        );
      }
    }
    return written;
  });
  if (noticed > 0) dispatchInBackground(ctx);
  return noticed;
}

/**
 * Every minute: moves the versions whose rollout date has come to enabled, through the lifecycle
 * service (its rules, its schedule-following, its author: the rollout's), and ends the rollout in
 * the same transaction. One the lifecycle refuses (the version moved meanwhile) fails with the reason.
 */
export async function runDueRollouts(ctx: GovernanceContext, limit = 50): Promise<{ noticed: number; enabled: number; failed: number }> {
  const repository = new RolloutRepository(ctx.database);
  const counts = { noticed: await noticeDueRollouts(ctx, limit), enabled: 0, failed: 0 };
  for (const rollout of await repository.due(limit)) {
    try {
      await changeStatusOfEntity(ctx, rollout.entityKind, rollout.entityId, {
        to: 'enabled',
        version: rollout.version,
        subject: rollout.createdBy,
        alongside: async (tx) => {
          if (!(await repository.end(rollout.id, { status: 'done', by: SCHEDULER }, tx))) throw new CancelledMeanwhile();
        },
      });
      counts.enabled++;
    } catch (error) {
      if (error instanceof CancelledMeanwhile) continue;
      counts.failed++;
      logger.warn({ err: error, rolloutId: rollout.id }, 'a rollout could not enable its version');
      await repository.end(rollout.id, { status: 'failed', by: SCHEDULER, error: (error as Error).message });
    }
  }
  return counts;
}
