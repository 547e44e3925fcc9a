import { getDatabase } from '../../lib/db/client';
import { dispatchOutbox, platformSenders } from '../../lib/outbox/outbox-dispatcher';
import { getSettings } from '../../lib/settings';

/** Every minute: delivers the outbox messages (audit records) that are due, retrying failed ones. */
export const handler = async () => dispatchOutbox(await getDatabase(), platformSenders(await getSettings()));
