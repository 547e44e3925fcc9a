import type { Database } from '#lib/db/client';
import { storableCopy, unstorableText } from '#lib/db/storable-text';
import { InvalidInput } from '#lib/errors/domain-errors';
import { logger } from '#lib/logging/logger';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { announceKnowledgeChange } from '#lib/outbox/knowledge-changes';
import { callerTargetTimeoutsOf, type OutboundTimeouts } from '#lib/platform/http-client';
import { type Perimeter, resolveDeployed, type ResolvedResource, resolvePerimeter, type ResolverRetry } from '#lib/platform/perimeter-resolver';
import type { Settings } from '#lib/settings/index';

import type { Descriptor, ReportRequest, ResourceIdentity } from '../../../drizzle/schema/json-columns';
import type { GovernanceContext } from '../context';
import { type DisagreementSink, type EngineEntity, engineFailure, type EngineResource, type EngineResult } from '../engines/engine';
import { evaluateEntities } from '../engines/engines';
import { ExceptionRepository, pairKey } from '../exceptions/exception-repository';
import { EntityRepository, type EntityRow } from '../policies/entity-repository';
import { pageSizeOf } from '../resource-types/resource-type';
import { ResourceTypeRepository, type ResourceTypeRow } from '../resource-types/resource-type-repository';
import { parseDescriptor, scalarFieldOf } from './descriptor';
import { DisagreementRepository, type NewDisagreement } from './disagreement-repository';
import { type ErrorLocation, locateCueErrors } from './error-locations';
import { outcomeOf, overallOutcome } from './outcome';
import { recordReportEnd } from './report-metrics';
import { recordsHistory, ReportRepository, type ReportRow } from './report-repository';
import { type NewResult, ResultRepository } from './result-repository';
import { matchingThreshold } from './thresholds';

/** A run renews its hold on a report at least this often; past it, the sweeper takes the report over. */
const LEASE_MS = 60_000;

/** One resource ready for the engines: who it is and its descriptor (or why it has none). */
export interface Candidate {
  identity: ResourceIdentity;
  descriptor: Descriptor | Error;
  /** previous_vs_current: the deployed descriptor, null when none is deployed, an Error when it could not be read. */
  deployed?: Descriptor | null | Error;
}

/** Where a report's resources are listed, and the descriptor field naming their owner (null: none). */
export type ReportPerimeter = Perimeter & { ownerField: string | null };

export interface RunContext {
  database: Database;
  settings: Settings;
  report: ReportRow;
  /** The environment whose resources are evaluated. */
  environment: string;
  perimeter: ReportPerimeter;
  timeouts: OutboundTimeouts;
  signal?: AbortSignal;
  /** Told when the resolver call for the page at `offset` failed and will be tried again (queued evaluations show it on the report). */
  onResolverRetry?: (offset: number, retry: ResolverRetry) => Promise<void>;
}

const engineEntity = (row: EntityRow): EngineEntity => ({
  id: row.id,
  version: row.version,
  kind: row.kind,
  engine: row.engine ?? 'cue',
  cueScript: row.cueScript,
  requireConcrete: row.requireConcrete,
  remoteEngineUrl: row.remoteEngineUrl,
  llmRule: row.llmRule,
  evaluator: row.evaluator,
});

function engineResource(ctx: RunContext, candidate: Candidate, strategy: EntityRow['strategy']): EngineResource | Error {
  if (candidate.descriptor instanceof Error) return candidate.descriptor;
  const base = { id: candidate.identity.id, resourceType: ctx.report.resourceType };
  if (strategy !== 'previous_vs_current') return { ...base, descriptor: candidate.descriptor.value, content: candidate.descriptor.text };
  if (candidate.deployed instanceof Error) return candidate.deployed;
  const { previousResourceReference, currentResourceReference } = ctx.settings.breakingChange;
  const descriptor = { [previousResourceReference]: candidate.deployed?.value ?? null, [currentResourceReference]: candidate.descriptor.value };
  return { ...base, descriptor, content: JSON.stringify(descriptor) };
}

const verdictOf = ({ satisfiesPolicy, isError, errors }: EngineResult) => ({ satisfiesPolicy, isError, errors });

/**
 * Records the disagreements of the CUE evaluators (cue-config.evaluator = shadow). Evidence for an
 * operator, not part of the verdict: a failure to record is logged, the evaluation goes on.
 */
async function recordDisagreements(ctx: RunContext, disagreements: NewDisagreement[]): Promise<void> {
  try {
    await new DisagreementRepository(ctx.database).record(disagreements);
  } catch (error) {
    logger.error({ err: error, reportId: ctx.report.id }, `${disagreements.length} disagreements of the CUE evaluators could not be recorded`);
  }
}

/** The pairs of the batch that did not comply and that an active exception waives (one query, only when some did not comply). */
async function waivedPairs(ctx: RunContext, entities: EntityRow[], candidates: Candidate[], results: EngineResult[][]): Promise<Set<string>> {
  const failing = entities.filter((_, e) => results[e].some((result) => !result.isError && !result.satisfiesPolicy));
  if (failing.length === 0) return new Set();
  return new ExceptionRepository(ctx.database).waivedPairs(
    failing.map((entity) => entity.id),
    ctx.environment,
    candidates.map((candidate) => candidate.identity.id),
  );
}

/**
 * A CUE result with its errors located in the descriptor's text, when the descriptor came as text
 * (Evaluate, tests, the perimeter resolver) and the policy saw it as it was (not previous_vs_current).
 */
function locatedInDescriptor(entity: EntityRow, candidate: Candidate, result: EngineResult): EngineResult & { locations?: ErrorLocation[] } {
  const descriptor = candidate.descriptor;
  if (entity.engine !== 'cue' || entity.strategy !== 'default' || result.isError || result.errors.length === 0) return result;
  if (descriptor instanceof Error || descriptor.fromObject) return result;
  const { errors, locations } = locateCueErrors(result.errors, descriptor.text);
  return locations.length === 0 ? result : { ...result, errors, locations };
}

/** The owner a candidate's descriptor names in its type's owner field, if any. */
function ownerOf(ctx: RunContext, candidate: Candidate): string | null {
  const field = ctx.perimeter.ownerField;
  if (!field || candidate.descriptor instanceof Error) return null;
  return scalarFieldOf(candidate.descriptor.value, field) ?? null;
}

/** How many verdicts each engine gave in this environment, and how many did not comply or could not be given (docs/operations.md). */
function recordEvaluations(ctx: RunContext, entities: readonly EntityRow[], rows: readonly NewResult[]): void {
  const engineOf = new Map(entities.map((entity) => [entity.id, entity.engine ?? 'passive']));
  const counts = new Map<string, { all: number; notCompliant: number; failed: number }>();
  for (const row of rows) {
    const engine = engineOf.get(row.entityId) ?? 'passive';
    const count = counts.get(engine) ?? { all: 0, notCompliant: 0, failed: 0 };
    count.all++;
    if (row.outcome === 'failed') count.failed++;
    else if (row.outcome !== 'ok' && row.outcome !== 'waived') count.notCompliant++;
    counts.set(engine, count);
  }
  for (const [engine, { all, notCompliant, failed }] of counts) {
    const dimensions = { engine, environment: ctx.environment };
    recordMetric('Evaluations', MetricUnit.Count, all, dimensions);
    recordMetric('EvaluationsNotCompliant', MetricUnit.Count, notCompliant, dimensions);
    recordMetric('EvaluationsFailed', MetricUnit.Count, failed, dimensions);
  }
}

/** Evaluates every entity against the candidates: the result rows to append. */
export async function evaluateCandidates(ctx: RunContext, entities: EntityRow[], candidates: Candidate[]): Promise<NewResult[]> {
  const results: EngineResult[][] = entities.map(() => []);
  const disagreements: NewDisagreement[] = [];
  const onDisagreement: DisagreementSink = ({ entity, resourceId, native, wasm }) =>
    disagreements.push({
      reportId: ctx.report.id,
      entityId: entity.id,
      entityVersion: entity.version,
      entityKind: entity.kind,
      resourceId,
      environment: ctx.environment,
      native: verdictOf(native),
      wasm: verdictOf(wasm),
    });
  for (const strategy of ['default', 'previous_vs_current'] as const) {
    const indexes = entities.flatMap((entity, index) => (entity.strategy === strategy ? [index] : []));
    if (indexes.length === 0) continue;
    const prepared = candidates.map((candidate) => engineResource(ctx, candidate, strategy));
    const usable = prepared.flatMap((resource, r) => (resource instanceof Error ? [] : [{ resource, r }]));
    const answers = await evaluateEntities(
      indexes.map((index) => engineEntity(entities[index])),
      usable.map((u) => u.resource),
      { ctx, signal: ctx.signal, onDisagreement },
    );
    indexes.forEach((entityIndex, i) => {
      results[entityIndex] = prepared.map((resource) => (resource instanceof Error ? engineFailure(resource.message) : engineFailure('not evaluated')));
      usable.forEach((u, j) => {
        results[entityIndex][u.r] = answers[i][j];
      });
    });
  }
  // Answers given while the run was being stopped (a call cut short reads as an engine failure) are never written.
  ctx.signal?.throwIfAborted();
  if (disagreements.length > 0) await recordDisagreements(ctx, disagreements);
  const waived = await waivedPairs(ctx, entities, candidates, results);
  const rows = entities.flatMap((entity, e) =>
    candidates.map((candidate, r) => {
      const result = locatedInDescriptor(entity, candidate, results[e][r]);
      const threshold = entity.kind === 'metric' && result.value !== undefined ? matchingThreshold(result.value, entity.thresholds ?? []) : undefined;
      return {
        reportId: ctx.report.id,
        recorded: recordsHistory(ctx.report),
        entityId: entity.id,
        entityVersion: entity.version,
        entityKind: entity.kind,
        entityStatus: entity.status,
        severity: entity.severity,
        outcome: outcomeOf(result, entity, waived.has(pairKey(entity.id, candidate.identity.id))),
        resourceId: candidate.identity.id,
        resourceDisplayName: candidate.identity.displayName,
        resourceVersion: candidate.identity.version,
        resourceOwner: ownerOf(ctx, candidate),
        environment: ctx.environment,
        resourceType: ctx.report.resourceType,
        result: { ...result, ...(threshold ? { threshold } : {}) },
        value: result.value ?? null,
      };
    }),
  );
  recordEvaluations(ctx, entities, rows);
  return rows;
}

async function evaluateBatch(ctx: RunContext, entities: EntityRow[], candidates: Candidate[]): Promise<void> {
  await new ResultRepository(ctx.database).append(await evaluateCandidates(ctx, entities, candidates));
}

async function deployedVersion(ctx: RunContext, id: string): Promise<Descriptor | null | Error> {
  try {
    const deployed = await resolveDeployed(ctx.perimeter, ctx.environment, id, ctx.timeouts, ctx.signal);
    return deployed ? parseDescriptor(deployed.content) : null;
  } catch (error) {
    return new Error(`The deployed version of ${id} could not be read: ${(error as Error).message}`);
  }
}

export function fromResolver(resource: ResolvedResource): Candidate {
  let identity = { id: resource.id, displayName: resource.displayName ?? null, version: resource.version ?? null };
  let descriptor: Descriptor | Error;
  const unstorable = unstorableText(identity, 'resource');
  if (unstorable) {
    // Its result is still recorded, under the identity made storable, as not evaluated.
    identity = storableCopy(identity);
    descriptor = new Error(`The perimeter resolver gave a resource the database cannot store as it is (${unstorable.path}: ${unstorable.message})`);
  } else {
    try {
      descriptor = parseDescriptor(resource.content);
    } catch (error) {
      const [field] = error instanceof InvalidInput ? error.errors : [];
      const reason = field ? `${field.path}: ${field.message}` : (error as Error).message;
      descriptor = new Error(`The descriptor the perimeter resolver gave for ${resource.id} was refused (${reason})`);
    }
  }
  // What is deployed is both sides of a previous_vs_current comparison of a deployed resource.
  return { identity, descriptor, deployed: descriptor };
}

/** The entity versions a report names, in its order (a version deleted since is left out). */
export async function entitiesOf(database: Database, request: ReportRequest): Promise<EntityRow[]> {
  const found = await new EntityRepository(database).findVersions(request.entities);
  return request.entities.flatMap((key) => found.filter((row) => row.id === key.id && row.version === key.version));
}

/** Where the resources of a report's type are listed. */
export async function perimeterOf(database: Database, settings: Settings, resourceType: string): Promise<ReportPerimeter> {
  const type = await new ResourceTypeRepository(database).find(resourceType);
  if (!type) throw new Error(`The resource type ${resourceType} no longer exists`);
  return perimeterFrom(type, settings);
}

/** The same, of a resource type already read. */
export function perimeterFrom(type: ResourceTypeRow, settings: Settings): ReportPerimeter {
  return {
    resourceType: type.name,
    url: type.resolverUrl,
    path: type.resolverPath,
    batchSize: pageSizeOf(type.batchSize),
    retries: settings.evaluation.resolverRetries,
    ownerField: type.resourceOwnerField,
  };
}

async function run(ctx: RunContext, request: ReportRequest): Promise<void> {
  const reports = new ReportRepository(ctx.database);
  const entities = await entitiesOf(ctx.database, request);
  if (request.mode === 'descriptor') {
    const needsDeployed = entities.some((entity) => entity.strategy === 'previous_vs_current');
    const candidate: Candidate = {
      identity: request.resource,
      descriptor: request.descriptor,
      deployed: needsDeployed ? await deployedVersion(ctx, request.resource.id) : undefined,
    };
    await reports.progress(ctx.report.id, entities.length, 0, LEASE_MS, ctx.report.attempts);
    await evaluateBatch(ctx, entities, [candidate]);
    await reports.progress(ctx.report.id, entities.length, entities.length, LEASE_MS, ctx.report.attempts);
    return;
  }
  if (request.mode === 'queued') throw new Error('A queued evaluation is run page by page by the evaluation worker');
  let done = 0;
  for await (const page of resolvePerimeter(ctx.perimeter, ctx.environment, ctx.timeouts, ctx.signal)) {
    ctx.signal?.throwIfAborted();
    await reports.progress(ctx.report.id, done + page.length * entities.length, done, LEASE_MS, ctx.report.attempts);
    await evaluateBatch(ctx, entities, page.map(fromResolver));
    done += page.length * entities.length;
    await reports.progress(ctx.report.id, done, done, LEASE_MS, ctx.report.attempts);
  }
}

/**
 * Runs a report to its end: evaluates, appends the results, and completes it with its outcome.
 * Does nothing when the report is finished or another run holds it. Safe to call again after a
 * crash: results already written are not written twice. A failure of the run itself (the perimeter
 * resolver down, the database gone) fails the report with the reason.
 *
 * A run stops (its outbound calls cut, nothing more written) when `signal` aborts (the function
 * that runs it is about to stop): the report is given back for the sweeper to run again; or when it
 * outlasts evaluation.run-timeout: the report fails, naming the setting.
 */
export async function runReport(ctx: GovernanceContext, reportId: string, signal?: AbortSignal): Promise<void> {
  const { database, settings } = ctx;
  const reports = new ReportRepository(database);
  const report = await reports.claim(reportId, LEASE_MS);
  if (!report) return;
  const { runTimeout } = settings.evaluation;
  const deadline = AbortSignal.timeout(runTimeout);
  const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const attempt = report.attempts;
  try {
    const perimeter = await perimeterOf(database, settings, report.resourceType);
    await run(
      { database, settings, report, environment: report.environment ?? '', perimeter, timeouts: callerTargetTimeoutsOf(settings), signal: stop },
      report.request,
    );
    const { outcome, passed } = overallOutcome(await new ResultRepository(database).outcomesOfReport(reportId));
    const ended = await reports.finish(reportId, { status: 'completed', outcome, passed }, undefined, attempt);
    if (ended) recordReportEnd(ended);
    // A test's results belong to its report, not to the history the index summarises.
    if (ended && recordsHistory(report)) await announceKnowledgeChange(ctx, { type: 'results', id: reportId });
  } catch (error) {
    if (signal?.aborted) {
      logger.warn({ reportId }, 'an evaluation was stopped with the function running it; the sweeper runs it again');
      await reports.release(reportId, attempt);
      return;
    }
    const reason = deadline.aborted ? `the evaluation did not finish within ${runTimeout / 1000} s (evaluation.run-timeout)` : (error as Error).message;
    logger.warn({ err: error, reportId }, 'an evaluation failed');
    const failed = await reports.finish(reportId, { status: 'failed', error: reason }, undefined, attempt);
    if (failed) recordReportEnd(failed);
  }
}

/**
 * Re-runs reports whose run was lost (a process that died or was frozen mid-way), those started fewest times
 * first; one started `evaluation.max-attempts` times (a run that always dies) is failed with the reason instead.
 * `signal` aborts when the function running them is about to stop: the run in progress gives its report back.
 */
export async function runAbandonedReports(ctx: GovernanceContext, limit = 20, signal?: AbortSignal): Promise<number> {
  const reports = new ReportRepository(ctx.database);
  const { maxAttempts } = ctx.settings.evaluation;
  for (const { id, attempts } of await reports.giveUp(LEASE_MS, maxAttempts))
    logger.error({ reportId: id, attempts }, 'an evaluation was given up: started evaluation.max-attempts times, it never finished');
  const ids = await reports.abandoned(LEASE_MS, maxAttempts, limit);
  let started = 0;
  for (const id of ids) {
    if (signal?.aborted) break;
    await runReport(ctx, id, signal);
    started++;
  }
  return started;
}
