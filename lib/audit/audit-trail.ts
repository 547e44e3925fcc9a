import type { ServiceContext } from '#lib/db/client';
import { inTransaction } from '#lib/db/transaction';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { OutboxRepository } from '#lib/outbox/outbox-repository';

import { AuditRepository } from './audit-repository';
import { registerChainSender } from './chain-sender';

type AuditRecord = Record<string, unknown>;

/** The outbox messages written ahead of a write call: its link of the audit chain, and its record for the platform. */
export interface HeldRecords {
  readonly chain: number;
  readonly platform?: number;
}

/**
 * Where the audit middleware (lib/http/middleware/audit.ts) writes a call's records: the audit chain
 * (audit_records) and, with `audit.enabled`, the platform's audit receiver, both through the outbox.
 */
export interface AuditTrail {
  /** Writes the records of a write call before it runs, held `holdMs` for its outcome: delivered as written if it never comes. */
  hold(chainRecord: AuditRecord, platformRecord: AuditRecord, holdMs: number): Promise<HeldRecords>;
  /** Gives held records their outcome: the chain link appended now, the platform's record due now. */
  complete(held: HeldRecords, chainRecord: AuditRecord, platformRecord: AuditRecord): Promise<void>;
  /** Records a call that was not held (a read, or a call refused before it could change anything). */
  record(chainRecord: AuditRecord | undefined, platformRecord: AuditRecord): Promise<void>;
}

/**
 * The audit trail over the database and outbox of the context `frame` gives for each call; the
 * process delivers the `chain` topic from then on.
 */
export function outboxAuditTrail(frame: () => Promise<ServiceContext>): AuditTrail {
  registerChainSender();
  return {
    async hold(chainRecord, platformRecord, holdMs) {
      const { database, settings } = await frame();
      const toPlatform = settings.platformServices.audit.enabled;
      const outbox = new OutboxRepository(database);
      const [chain, platform] = await outbox.hold(
        [{ topic: 'chain', payload: chainRecord }, ...(toPlatform ? [{ topic: 'audit' as const, payload: platformRecord }] : [])],
        holdMs,
      );
      return { chain, platform };
    },
    async complete(held, chainRecord, platformRecord) {
      const ctx = await frame();
      const { database } = ctx;
      const outbox = new OutboxRepository(database);
      await inTransaction(database, 'audit record of a call', async (tx) => {
        if (await outbox.takeHeld(held.chain, tx)) await new AuditRepository(database).append(chainRecord, tx);
        if (held.platform !== undefined) await outbox.release(held.platform, platformRecord, tx);
      });
      if (held.platform !== undefined) dispatchInBackground(ctx);
    },
    async record(chainRecord, platformRecord) {
      const ctx = await frame();
      const { database, settings } = ctx;
      if (chainRecord) await new AuditRepository(database).append(chainRecord);
      if (!settings.platformServices.audit.enabled) return;
      await new OutboxRepository(database).enqueue('audit', platformRecord);
      dispatchInBackground(ctx);
    },
  };
}
