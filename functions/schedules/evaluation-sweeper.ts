import type { Context } from 'aws-lambda';

import { governance } from '#lib/governance/composition';
import { runAbandonedReports } from '#lib/governance/evaluation/evaluation-runner';
import { sweepTasks } from '#lib/governance/evaluation/task-sweeper';
import { sweepEvidence } from '#lib/governance/evidence/evidence-service';
import { functionHandler } from '#lib/service/function-handler';

/**
 * Every minute: finishes evaluations whose run was lost (a function frozen or killed mid-way), and
 * sends the queued evaluation tasks whose message never reached the queue (locally, it also
 * redelivers failed pages and dead-letters those that keep failing); and sends the evidence packs to
 * build again (docs/evidence.md).
 */
export const handler = functionHandler(async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  // Runs in progress stop (and give their report back) a minute before the function would be stopped.
  const ctx = await governance();
  const signal = context ? AbortSignal.timeout(Math.max(0, context.getRemainingTimeInMillis() - 60_000)) : undefined;
  return { rerun: await runAbandonedReports(ctx, 20, signal), tasks: await sweepTasks(ctx), evidence: await sweepEvidence(ctx) };
});
