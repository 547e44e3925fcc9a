import { setTimeout as sleep } from 'node:timers/promises';

import { inTransaction } from '#lib/db/transaction';
import { ConflictError, type FieldError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';

import type { GovernanceContext } from '../context';
import { EnvironmentRepository } from '../environments/environment-repository';
import { environmentsOf, recordQueuedEvaluation, sendTasks } from '../evaluation/queued-evaluation';
import { ReportRepository } from '../evaluation/report-repository';
import type { EntityKind } from '../policies/entity';
import { readEntityRow } from '../policies/entity-reading';
import { EntityRepository } from '../policies/entity-repository';
import type { ImpactInput, ImpactReport, ImpactResourcesPage, ImpactResourcesQuery } from './impact';
import { ImpactRepository, type ImpactRow, type ImpactSummary } from './impact-repository';

/** How often a caller who asked to wait (Prefer: wait=N) reads the report again. */
const POLL_MS = 250;

/** The environments asked, each known, and within the entity's own when it has one. */
async function environmentsAsked(
  ctx: GovernanceContext,
  kind: EntityKind,
  entity: { environment: string | null },
  asked: readonly string[] | undefined,
): Promise<string[]> {
  const database = ctx.database;
  if (!asked) return environmentsOf(database, entity);
  const known = await new EnvironmentRepository(database).names();
  const errors: FieldError[] = [];
  asked.forEach((name, i) => {
    if (!known.includes(name)) errors.push({ path: `environments.${i}`, message: `unknown environment "${name}"; known: ${known.join(', ')}` });
    else if (entity.environment !== null && name !== entity.environment)
      errors.push({ path: `environments.${i}`, message: `this ${kind} applies to ${entity.environment} only` });
  });
  if (errors.length > 0) throw new InvalidInput(errors);
  return [...new Set(asked)];
}

/**
 * Starts an impact report: the candidate version (the newest unless `version` says) evaluated
 * against every resource of the perimeter of each environment, through the queue as publish does,
 * its results kept with its run; compared, once it ended, with the newest result of the live version.
 */
export async function startImpact(ctx: GovernanceContext, kind: EntityKind, id: string, input: ImpactInput, subject: string): Promise<ImpactRow> {
  const candidate = await readEntityRow(ctx, kind, id, input.version);
  if (!candidate.engine) throw new ConflictError(`This ${kind} has no engine (it is passive): there is nothing to run`);
  const environments = await environmentsAsked(ctx, kind, candidate, input.environments);
  const database = ctx.database;
  const live = (await new EntityRepository(database).versions(kind, id)).find((row) => row.status === 'enabled' || row.status === 'grace');
  const { impact, taskIds } = await inTransaction(database, 'impact report', async (tx) => {
    const queued = await recordQueuedEvaluation(database, tx, candidate, 'impact', environments, subject);
    const impact = await new ImpactRepository(database).create(
      {
        entityKind: kind,
        entityId: id,
        candidateVersion: candidate.version,
        baselineVersion: live?.version ?? null,
        evaluationReportId: queued.reportId,
        environments,
        createdBy: subject,
      },
      tx,
    );
    return { impact, taskIds: queued.taskIds };
  });
  await sendTasks(ctx, taskIds);
  return impact;
}

/**
 * The impact report an approver decides on: the newest of this version, else one started now
 * (under the requester's name). Null for a version with no engine (passive: nothing to run).
 */
export async function impactForApproval(
  ctx: GovernanceContext,
  kind: EntityKind,
  entity: { id: string; version: number; engine: string | null },
  requester: string,
): Promise<string | null> {
  if (!entity.engine) return null;
  const newest = await new ImpactRepository(ctx.database).newestOf(entity.id, entity.version);
  return (newest ?? (await startImpact(ctx, kind, entity.id, { version: entity.version }, requester))).id;
}

/** The report: its run's status, and once the run completed, its counts (computed at the first read after). */
export async function getImpactReport(ctx: GovernanceContext, id: string): Promise<ImpactReport> {
  const database = ctx.database;
  const impacts = new ImpactRepository(database);
  const impact = await impacts.find(id);
  if (!impact) throw new NotFoundError(`No impact report has the id ${id}`);
  const run = await new ReportRepository(database).find(impact.evaluationReportId);
  if (!run) throw new Error(`The run ${impact.evaluationReportId} of impact report ${id} is gone`);
  const summary = (impact.summary as ImpactSummary | null) ?? (run.status === 'completed' ? await impacts.summarize(impact) : null);
  return {
    id: impact.id,
    status: run.status,
    kind: impact.entityKind,
    policyId: impact.entityId,
    candidateVersion: impact.candidateVersion,
    baselineVersion: impact.baselineVersion,
    environments: impact.environments,
    evaluationReportId: impact.evaluationReportId,
    error: run.error,
    counts: summary?.counts ?? null,
    byEnvironment: summary?.byEnvironment ?? [],
    byOwner: summary?.byOwner ?? [],
    // Reports summarized before metrics were weighed on thresholds have none.
    byThreshold: summary?.byThreshold ?? [],
    createdAt: impact.createdAt.toISOString(),
    createdBy: impact.createdBy,
  };
}

/** The report once its run ended, or as it is after `waitMs` (or when `signal` aborts). */
export async function waitForImpactReport(ctx: GovernanceContext, id: string, waitMs: number, signal?: AbortSignal): Promise<ImpactReport> {
  const until = Date.now() + waitMs;
  for (;;) {
    const report = await getImpactReport(ctx, id);
    if (report.status === 'completed' || report.status === 'failed' || Date.now() >= until || signal?.aborted) return report;
    await sleep(Math.min(POLL_MS, until - Date.now()), undefined, { signal }).catch(() => undefined);
  }
}

const cursorOf = (row: { environment: string; resourceId: string }) => Buffer.from(JSON.stringify([row.environment, row.resourceId])).toString('base64url');

function afterOf(cursor: string | undefined): { environment: string; resourceId: string } | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [environment, resourceId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof environment === 'string' && typeof resourceId === 'string') return { environment, resourceId };
  } catch {
    // refused below
  }
  throw new InvalidInput([{ path: 'query.after', message: 'after must be the `next` cursor of a page of this list' }]);
}

/** A page of the report's resources, of one change or all, by environment and resource id. */
export async function listImpactResources(ctx: GovernanceContext, id: string, query: ImpactResourcesQuery): Promise<ImpactResourcesPage> {
  const report = await getImpactReport(ctx, id);
  if (report.status !== 'completed') throw new ConflictError(`The impact report is ${report.status}: its resources are listed once its run completed`);
  const rows = await new ImpactRepository(ctx.database).resources(id, query, query.limit + 1, afterOf(query.after));
  const page = rows.slice(0, query.limit);
  return {
    data: page.map((row) => ({
      environment: row.environment,
      resourceId: row.resourceId,
      owner: row.owner,
      change: row.change,
      candidateOutcome: row.candidateOutcome as ImpactResourcesPage['data'][number]['candidateOutcome'],
      baselineOutcome: row.baselineOutcome as ImpactResourcesPage['data'][number]['baselineOutcome'],
      errors: row.errors,
      candidateValue: row.candidateValue,
      baselineValue: row.baselineValue,
      candidateThreshold: row.candidateThreshold,
      baselineThreshold: row.baselineThreshold,
    })),
    meta: { limit: query.limit, next: rows.length > query.limit ? cursorOf(page[page.length - 1]) : null },
  };
}
