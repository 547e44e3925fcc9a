import { registerLocalSender } from '#lib/outbox/outbox-dispatcher';

import { linkPendingRecords } from './audit-chainer';

/** The outbox topic `chain` in this process: the records of calls, linked to the audit chain in batches by the chainer, one chainer at a time. */
export function registerChainSender(): void {
  registerLocalSender('chain', { drain: (database) => linkPendingRecords(database, { wait: false }) });
}
