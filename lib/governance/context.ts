import type { Database, ServiceContext } from '#lib/db/client';
import type { Transaction } from '#lib/db/transaction';
import type { JobQueue } from '#lib/queue/job-queue';

import type { EntityRow } from './policies/entity-repository';

/**
 * What governance's services work with, passed to them as their first parameter: built for each
 * call of a function by lib/governance/composition.ts, the one place that reads the process's
 * settings, pool and queue. Tests and scripts may build their own.
 */
export interface GovernanceContext extends ServiceContext {
  /** The evaluation queue, made on first use: only publishing, schedules and workers send to it. */
  queue(): Promise<JobQueue>;
  readonly hooks: GovernanceHooks;
}

/** What a publish started (its evaluation): the report to answer with, and what to do once the publish committed. */
export interface PublishStarted {
  reportId: string;
  afterCommit(): Promise<void>;
}

/** A report of an evaluation, as it ended. */
export type EndedReport = Database['tables']['evaluationReports']['$inferSelect'];

/**
 * What the areas built on policies do when something changes below them, run in the transaction
 * of the change, so that they are written with it or not at all. The code that changes it knows
 * none of them: lib/governance/composition.ts wires them in.
 */
export interface GovernanceHooks {
  /** After every status move of a policy or metric, publish included: what follows the version enabled (its cron schedule). */
  readonly statusChanged: readonly ((ctx: GovernanceContext, tx: Transaction, entity: EntityRow) => Promise<void>)[];
  /** After a publish's move: what a publish starts (an evaluation against every resource). */
  readonly published: readonly ((
    ctx: GovernanceContext,
    tx: Transaction,
    entity: EntityRow,
    publish: { subject: string; enforcedVersion?: number },
  ) => Promise<PublishStarted | undefined>)[];
  /** With the deletion of a policy or metric: what other areas keep of it (its schedule, answers, exceptions). */
  readonly deleted: readonly ((ctx: GovernanceContext, tx: Transaction, id: string) => Promise<void>)[];
  /**
   * When a queued evaluation that makes history ended: what its cause announces (a scheduled run's
   * failure, what a publish newly fails). True when something was written to the outbox.
   */
  readonly reportEnded: readonly ((ctx: GovernanceContext, tx: Transaction, report: EndedReport) => Promise<boolean>)[];
}
