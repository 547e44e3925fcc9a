import { runAbandonedReports } from '#lib/governance/evaluation/evaluation-runner';
import { sweepTasks } from '#lib/governance/evaluation/queued-evaluation';

/**
 * Every minute: finishes evaluations whose run was lost (a function frozen or killed mid-way), and
 * sends the queued evaluation tasks whose message never reached the queue (locally, it also
 * redelivers failed pages and dead-letters those that keep failing).
 */
export const handler = async () => ({ rerun: await runAbandonedReports(), tasks: await sweepTasks() });
