import { governance } from '#lib/governance/composition';
import { runDueRollouts } from '#lib/governance/rollouts/rollout-service';

/** Every minute: enables the versions in grace whose rollout date has come (docs/governance.md, "Dated rollout"). */
export const handler = async () => runDueRollouts(await governance());
