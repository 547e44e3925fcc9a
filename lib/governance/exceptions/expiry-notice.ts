import { inTransaction } from '#lib/db/transaction';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import { notificationOf } from '#lib/platform/notifications';

import type { GovernanceContext } from '../context';
import { EntityRepository } from '../policies/entity-repository';
import { ExceptionRepository } from './exception-repository';

/**
 * Announces, once each, the active exceptions that expire within exceptions.expiry-notice: an
 * `exception-expiring-event` notification per exception, written to the outbox in the transaction
 * that marks it announced, then delivered in the background (and by the outboxDispatcher). With
 * notifications off nothing is marked, so enabling them later still announces what is expiring.
 * Answers how many it announced.
 */
export async function announceExpiringExceptions(ctx: GovernanceContext): Promise<number> {
  const { database, settings } = ctx;
  if (!settings.notification.enabled) return 0;
  const entities = new EntityRepository(database);
  const outbox = new OutboxRepository(database);
  const announced = await inTransaction(database, 'exception expiry notices', async (tx) => {
    const expiring = await new ExceptionRepository(database).takeExpiring(settings.exceptions.expiryNotice, tx);
    for (const exception of expiring) {
      const name = (await entities.find(exception.entityKind, exception.entityId))?.name ?? null;
      const where = exception.environment ? `in ${exception.environment}` : 'in every environment';
      const notification = notificationOf(
        settings,
        'exception-expiring-event',
        { id: exception.entityId, name, type: exception.entityKind },
        `The exception to ${exception.entityKind} ${name ? `"${name}" ` : ''}for ${exception.resourceId} ${where} expires at ` +
          `${exception.expiresAt.toISOString()}; then its failing results count again (reason: ${exception.reason}${exception.ticket ? `, ticket ${exception.ticket}` : ''})`,
      );
      if (!notification) continue;
      await outbox.enqueue(
        'notification',
        {
          ...notification,
          exception: {
            id: exception.id,
            resourceId: exception.resourceId,
            environment: exception.environment,
            reason: exception.reason,
            ticket: exception.ticket,
            expiresAt: exception.expiresAt.toISOString(),
          },
        },
        tx,
      );
    }
    return expiring.length;
  });
  if (announced > 0) dispatchInBackground(ctx);
  return announced;
}
