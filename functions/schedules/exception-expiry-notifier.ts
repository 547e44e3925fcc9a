import { governance } from '#lib/governance/composition';
import { announceExpiringExceptions } from '#lib/governance/exceptions/expiry-notice';
import { functionHandler } from '#lib/service/function-handler';

/** Every hour: notifies, once each, the exceptions that expire within exceptions.expiry-notice. */
export const handler = functionHandler(async () => announceExpiringExceptions(await governance()));
