import type { Transaction } from '#lib/db/transaction';

import type { GovernanceContext } from '../context';
import type { EntityRow } from '../policies/entity-repository';
import { CronScheduleRepository } from './cron-schedule-repository';

/** The `statusChanged` hook: a cron entity is scheduled while a version of it is enabled, by that version's expression. */
export async function followSchedule(ctx: GovernanceContext, tx: Transaction, entity: EntityRow): Promise<void> {
  await new CronScheduleRepository(ctx.database).follow(entity.id, ctx.settings.cronPolicies.timeZone, tx);
}

/** The `deleted` hook: a deleted entity has no schedule. */
export async function dropSchedule(ctx: GovernanceContext, tx: Transaction, id: string): Promise<void> {
  await new CronScheduleRepository(ctx.database).remove(id, tx);
}
