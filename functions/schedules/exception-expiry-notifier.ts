import { governance } from '#lib/governance/composition';
import { announceExpiringExceptions } from '#lib/governance/exceptions/expiry-notice';

/** Every hour: notifies, once each, the exceptions that expire within exceptions.expiry-notice. */
export const handler = async () => announceExpiringExceptions(await governance());
