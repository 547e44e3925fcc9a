import type { Transaction } from '#lib/db/transaction';
import { announceKnowledgeChangeIn } from '#lib/outbox/knowledge-changes';

import type { GovernanceContext } from '../context';
import { overallOutcome } from './outcome';
import { recordReportEnd } from './report-metrics';
import { recordsHistory, ReportRepository, type ReportRow } from './report-repository';
import { ResultRepository } from './result-repository';
import { TaskRepository } from './task-repository';

/**
 * When the last of its tasks has ended, the report ends: `failed` naming the pages that failed, else
 * `completed` with its outcome. What its cause announces (the `reportEnded` hooks: a scheduled
 * run's failure, what a publish newly fails) is written in the same transaction. True when something
 * was written to the outbox.
 */
export async function finishIfEnded(ctx: GovernanceContext, report: ReportRow, tx: Transaction): Promise<boolean> {
  const { database } = ctx;
  const tasks = await new TaskRepository(database).ofReport(report.id, tx);
  if (tasks.some((task) => task.status === 'queued' || task.status === 'running')) return false;
  const reports = new ReportRepository(database);
  const failed = tasks.filter((task) => task.status === 'failed');
  let ended: ReportRow | undefined;
  if (failed.length > 0) {
    ended = await reports.finish(report.id, { status: 'failed', error: failed.map((task) => task.lastError).join('; ') }, tx);
  } else {
    const { outcome, passed } = overallOutcome(await new ResultRepository(database).outcomesOfReport(report.id, tx));
    ended = await reports.finish(report.id, { status: 'completed', outcome, passed }, tx);
  }
  if (!ended) return false;
  recordReportEnd(ended);
  if (!recordsHistory(ended)) return false;
  await announceKnowledgeChangeIn(database, tx, { type: 'results', id: ended.id });
  for (const hook of ctx.hooks.reportEnded) await hook(ctx, tx, ended);
  return true;
}
