import { governance } from '#lib/governance/composition';
import { dispatchDueCronPolicies } from '#lib/governance/scheduling/cron-dispatcher';
import { functionHandler } from '#lib/service/function-handler';

/** Every minute: starts the runs of the cron policies that are due (docs/governance.md, "Cron policies"). */
export const handler = functionHandler(async () => dispatchDueCronPolicies(await governance()));
