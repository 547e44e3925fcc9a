import { lazilyPer } from '#lib/cache/lazy';
import { getDatabase } from '#lib/db/shared-database';
import { jobQueueOf } from '#lib/queue/queue-from-settings';
import { getSettings, type Settings } from '#lib/settings/shared-settings';

import { ApprovalRepository } from './approvals/approval-repository';
import type { GovernanceContext } from './context';
import type { GovernanceHooks } from './context';
import { LlmAnswerRepository } from './engines/llm/llm-answer-repository';
import { announceNewlyFailing } from './evaluation/newly-failing';
import { evaluateOnPublish } from './evaluation/queued-evaluation';
import { ExceptionRepository } from './exceptions/exception-repository';
import { announceRuntimeFailure } from './scheduling/runtime-failure';
import { dropSchedule, followSchedule } from './scheduling/schedule-hooks';

// Where governance is put together: the one module of it that reads the process's settings and
// pool, and the one place that knows which area follows which change. Entry points (functions/)
// ask for a context and pass it down; nothing below reaches for a global.

/** Who does what when something changes: the order is the order they run in. */
const GOVERNANCE_HOOKS: GovernanceHooks = {
  statusChanged: [followSchedule],
  published: [evaluateOnPublish],
  deleted: [
    dropSchedule,
    (ctx, tx, id) => new LlmAnswerRepository(ctx.database).forget(id, tx),
    (ctx, tx, id) => new ExceptionRepository(ctx.database).forget(id, tx),
    (ctx, tx, id) => new ApprovalRepository(ctx.database).endForDeleted(id, tx),
  ],
  reportEnded: [announceRuntimeFailure, announceNewlyFailing],
};

/** The queue of a set of settings, made once for them. */
const queueOf = lazilyPer(async (settings: Settings) => jobQueueOf(settings));

/** Governance as this process has it: its settings, its pool and its queue, with the hooks above. */
export async function governance(): Promise<GovernanceContext> {
  const [settings, database] = await Promise.all([getSettings(), getDatabase()]);
  return { database, settings, queue: () => queueOf(settings), hooks: GOVERNANCE_HOOKS };
}
