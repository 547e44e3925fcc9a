import { runAbandonedReports } from '../../lib/governance/evaluation/evaluation-runner';

/** Every minute: finishes evaluations whose run was lost (a function frozen or killed mid-way). */
export const handler = async () => ({ rerun: await runAbandonedReports() });
