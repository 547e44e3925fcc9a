import type { ServiceContext } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import type { Settings } from '#lib/settings/index';

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
 * No call links its record into the chain: it makes it due, and the chainer links the records in
 * order, in batches (lib/audit/audit-chainer.ts), so that no call waits for the chain's turn.
 */
export interface AuditTrail {
  /** Writes the records of a write call before it runs, held `holdMs` for its outcome: delivered as written if it never comes. */
  hold(chainRecord: AuditRecord, platformRecord: AuditRecord, holdMs: number): Promise<HeldRecords>;
  /**
   * Gives held records their outcome, due now, in one statement: in `tx` (the transaction of the
   * call's change, which then commits with them; `deliver` once it has) or on their own and delivered.
   */
  complete(held: HeldRecords, chainRecord: AuditRecord, platformRecord: AuditRecord, tx?: Transaction): Promise<void>;
  /**
   * Records a call that was not held (a read, a call refused before it could change anything, or
   * one that writes its records itself): due now, in `tx` when given (then `deliver` once it commits).
   */
  record(chainRecord: AuditRecord | undefined, platformRecord: AuditRecord, tx?: Transaction): Promise<void>;
  /** Starts delivering what is due (the chain's links, the platform's records) without waiting for it. */
  deliver(): Promise<void>;
}

/**
 * The audit trail over the database and outbox of the context `frame` gives for each call; the
 * process links the `chain` topic from then on.
 */
export function outboxAuditTrail(frame: () => Promise<ServiceContext>): AuditTrail {
  registerChainSender();
  const deliver = async () => dispatchInBackground(await frame());
  return {
    async hold(chainRecord, platformRecord, holdMs) {
      const { database, settings } = await frame();
      const [chain, platform] = await new OutboxRepository(database).hold(messagesOf(chainRecord, platformRecord, settings), holdMs);
      return { chain, platform };
    },
    async complete(held, chainRecord, platformRecord, tx) {
      const { database } = await frame();
      const released = [{ id: held.chain, payload: chainRecord }, ...(held.platform === undefined ? [] : [{ id: held.platform, payload: platformRecord }])];
      await new OutboxRepository(database).release(released, tx);
      if (!tx) await deliver();
    },
    async record(chainRecord, platformRecord, tx) {
      const { database, settings } = await frame();
      const messages = messagesOf(chainRecord, platformRecord, settings);
      if (messages.length === 0) return;
      await new OutboxRepository(database).hold(messages, 0, tx);
      if (!tx) await deliver();
    },
    deliver,
  };
}

/** The outbox messages of a call's records: its link of the chain (a write call), and its record for the platform (`audit.enabled`). */
function messagesOf(chainRecord: AuditRecord | undefined, platformRecord: AuditRecord, settings: Settings) {
  return [
    ...(chainRecord ? [{ topic: 'chain' as const, payload: chainRecord }] : []),
    ...(settings.platformServices.audit.enabled ? [{ topic: 'audit' as const, payload: platformRecord }] : []),
  ];
}
