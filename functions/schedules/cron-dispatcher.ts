import { governance } from '#lib/governance/composition';
import { dispatchDueCronPolicies } from '#lib/governance/scheduling/cron-dispatcher';

/** Every minute: starts the runs of the cron policies that are due (docs/governance.md, "Cron policies"). */
export const handler = async () => dispatchDueCronPolicies(await governance());
