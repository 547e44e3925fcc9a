import { registerLocalSender } from '#lib/outbox/outbox-dispatcher';

import { AuditRepository } from './audit-repository';

/** The outbox topic `chain` in this process: an audit-chain link written ahead of a call, appended to the chain when delivered. */
export function registerChainSender(): void {
  registerLocalSender('chain', (record, tx, database) => new AuditRepository(database).append(record, tx));
}
