import { ConversationRepository } from '#lib/assistant/conversation-repository';
import type { Database } from '#lib/db/client';
import { trendHorizon } from '#lib/governance/compliance/compliance-service';
import { LlmAnswerRepository } from '#lib/governance/engines/llm/llm-answer-repository';
import { DisagreementRepository } from '#lib/governance/evaluation/disagreement-repository';
import { ReportRepository } from '#lib/governance/evaluation/report-repository';
import { ResultRepository } from '#lib/governance/evaluation/result-repository';
import { ImpactRepository } from '#lib/governance/impact/impact-repository';
import { logger } from '#lib/logging/logger';
import { OutboxRepository } from '#lib/outbox/outbox-repository';
import type { Settings } from '#lib/settings/index';

/** Rows deleted per statement: short locks, far inside database.statement-timeout. */
const BATCH = 5_000;
const DAY_MS = 86_400_000;

/** What a purge deleted, per kind. */
export type Purged = Record<'outbox' | 'reports' | 'impactReports' | 'results' | 'conversations' | 'llmAnswers' | 'disagreements', number>;

/** Runs `purgeSome` until it deletes less than a batch or `until` (epoch ms) passes; answers the total. */
async function drain(purgeSome: (limit: number) => Promise<number>, until: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await purgeSome(BATCH);
    total += deleted;
    if (deleted < BATCH || Date.now() >= until) return total;
  }
}

/**
 * Deletes what its retention setting has let go of, in batches: delivered outbox messages
 * (outbox.retention), finished reports with their descriptors and a test's results
 * (retention.reports) and impact reports as old, superseded results of the history older than that which the compliance
 * trend no longer needs, idle conversations, stored LLM answers and shadow disagreements. Stops
 * starting batches at `until`; the next run goes on.
 */
export async function purgeExpired(database: Database, settings: Settings, now = new Date(), until = Number.POSITIVE_INFINITY): Promise<Purged> {
  const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const { retention } = settings;
  const reportsBefore = daysAgo(retention.reports);
  const horizon = await trendHorizon(database, now);
  const resultsBefore = horizon < reportsBefore ? horizon : reportsBefore;
  const purged: Purged = {
    outbox: await drain((limit) => new OutboxRepository(database).purgeDelivered(new Date(now.getTime() - settings.outbox.retention), limit), until),
    reports: await drain((limit) => new ReportRepository(database).purgeFinished(reportsBefore, limit), until),
    impactReports: await drain((limit) => new ImpactRepository(database).purgeOlder(reportsBefore, limit), until),
    results: await drain((limit) => new ResultRepository(database).purgeSuperseded(resultsBefore, limit), until),
    conversations: await drain(
      (limit) => new ConversationRepository(database, settings.assistant.conversation.maxTurns).purgeIdle(daysAgo(retention.conversations), limit),
      until,
    ),
    llmAnswers: await drain((limit) => new LlmAnswerRepository(database).purgeOlder(daysAgo(retention.llmAnswers), limit), until),
    disagreements: await drain((limit) => new DisagreementRepository(database).purgeOlder(daysAgo(retention.disagreements), limit), until),
  };
  logger.info({ purged, resultsBefore: resultsBefore.toISOString() }, 'retention purge');
  return purged;
}
