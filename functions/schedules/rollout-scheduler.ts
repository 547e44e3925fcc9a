import { ApprovalRepository } from '#lib/governance/approvals/approval-repository';
import { governance } from '#lib/governance/composition';
import { runDueRollouts } from '#lib/governance/rollouts/rollout-service';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { functionHandler } from '#lib/service/function-handler';

/**
 * Every minute: enables the versions in grace whose rollout date has come (docs/governance.md,
 * "Dated rollout"), and records how many four-eyes requests wait for a decision (ApprovalsPending).
 */
export const handler = functionHandler(async () => {
  const ctx = await governance();
  const ran = await runDueRollouts(ctx);
  recordMetric('ApprovalsPending', MetricUnit.Count, await new ApprovalRepository(ctx.database).pendingCount());
  return ran;
});
