import { getDatabase } from '#lib/db/client';
import { dispatchOutbox, platformSenders } from '#lib/outbox/outbox-dispatcher';
import { getSettings } from '#lib/settings/index';

/** Every minute: delivers every outbox message that is due (audit records, notifications, events, knowledge-index changes), retrying failed ones. */
export const handler = async () => dispatchOutbox(await getDatabase(), platformSenders(await getSettings()));
