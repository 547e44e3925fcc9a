import { randomUUID } from 'node:crypto';

import type { Database } from '#lib/db/client';
import { inPipelinedTransaction, type PipelinedWork, type Transaction } from '#lib/db/transaction';
import { ConflictError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';
import { listBody, type Pagination } from '#lib/http/pagination';
import { logger } from '#lib/logging/logger';
import { dispatchInBackground } from '#lib/outbox/background-dispatch';
import { announceKnowledgeChange, announceKnowledgeChangeIn } from '#lib/outbox/knowledge-changes';
import { callerTargetTimeoutsOf } from '#lib/platform/http-client';

import type { ReportRequest } from '../../../drizzle/schema/json-columns';
import type { GovernanceContext } from '../context';
import { requireKnownEnvironment } from '../environments/environment-service';
import { ExceptionRepository, pairKey } from '../exceptions/exception-repository';
import type { EntityKind } from '../policies/entity';
import { readEntityRow } from '../policies/entity-reading';
import { EntityRepository, type EntityRow } from '../policies/entity-repository';
import type { ResourceTypeRow } from '../resource-types/resource-type-repository';
import { parseDescriptor } from './descriptor';
import type { CueDisagreement, DisagreementFilters } from './disagreement';
import { DisagreementRepository, type DisagreementRow } from './disagreement-repository';
import { evaluateCandidates, perimeterFrom, type RunContext, runReport } from './evaluation-runner';
import { evaluationSetOf, generationOf, keptEvaluationSet, requireType } from './evaluation-set-cache';
import { outcomeOf, overallOutcome } from './outcome';
import type { EvaluateInput, EvaluationReport, EvaluationResult, PassiveResultInput, PolicyTestInput, ResultFilters } from './report';
import { recordReportEnd } from './report-metrics';
import { getEvaluationReport, representResult, representWritten } from './report-reading';
import { type NewReport, recordsHistory, ReportRepository, type ReportRow } from './report-repository';
import { resourceIdentity } from './resource-identity';
import { ResultRepository } from './result-repository';

/** Answer of a call that started a report: the finished report, or only its id when it is still running. */
export type Started = { finished: true; report: EvaluationReport } | { finished: false; reportId: string };

/**
 * Creates the report and runs it in this process, waiting for it at most `waitMs`. A run that
 * outlives the wait goes on in the background; if this process stops first, the sweeper takes the
 * report over, so no evaluation is lost. `signal` is the request's: it aborts when the function is
 * about to stop, and the run then gives the report back to the sweeper.
 */
async function start(ctx: GovernanceContext, report: NewReport, waitMs: number, signal?: AbortSignal): Promise<Started> {
  const created = await new ReportRepository(ctx.database).create(report);
  const run = runReport(ctx, created.id, signal).catch((error) => logger.error({ err: error, reportId: created.id }, 'an evaluation run stopped'));
  let timer: NodeJS.Timeout | undefined;
  const finishedInTime = await Promise.race([run.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)))]);
  clearTimeout(timer);
  if (!finishedInTime) return { finished: false, reportId: created.id };
  const finished = await getEvaluationReport(ctx, created.id);
  return finished.status === 'completed' || finished.status === 'failed' ? { finished: true, report: finished } : { finished: false, reportId: created.id };
}

/**
 * How a call writes its audit records (HttpRequest.auditIn and recordAhead): in the transaction of
 * its report, with the answer it gives for that report; or ahead, before a run that is not one
 * transaction changes anything.
 */
export interface CallAudit {
  readonly within: (tx: Transaction, reportId: string) => Promise<void>;
  readonly ahead: () => Promise<void>;
}

/** What a call asks of one descriptor: its report, the entities to judge, and the descriptor's type. */
interface OneDescriptor {
  readonly report: NewReport & { environment: string };
  readonly entities: EntityRow[];
  readonly type: ResourceTypeRow;
  /** The generation the entities were kept at, when they were taken without reading it (keptEvaluationSet): the write checks it. */
  readonly keptAt?: number;
}

/** What a call asks, with the entities this process keeps (`fresh` false: checked when written), or read now. */
type Ask = (ctx: GovernanceContext, fresh: boolean) => Promise<OneDescriptor>;

/**
 * The deploy gate's path (issue 46): one descriptor whose every entity the native CUE evaluator
 * judges in process. The entities are those this process keeps, taken without a read; the
 * descriptor is judged (the pairs the native evaluator defers to the reference one included); then
 * one pipelined transaction (inPipelinedTransaction) reads the generation of the governance tables and writes the
 * report, finished, beside its results and the call's audit records (`audit.within`), with no lease,
 * no progress, nothing for the sweeper. It commits if the generation is the one the entities were
 * kept at (nothing changed since: they were in force when the call began); else nothing is kept,
 * and the descriptor is judged again with the entities read now. The answer is built from what was
 * written. Undefined when the work is not local (another engine, a previous_vs_current policy,
 * another evaluator setting): the report is then run as any other.
 */
async function evaluateInOneTransaction(ctx: GovernanceContext, ask: Ask, options: { signal?: AbortSignal; audit?: CallAudit }): Promise<Started | undefined> {
  if (ctx.settings.cueConfig.evaluator !== 'native') return undefined;
  for (const fresh of [false, true]) {
    const asked = await ask(ctx, fresh);
    if (!asked.entities.every((entity) => entity.engine === 'cue' && entity.evaluator === 'native' && entity.strategy !== 'previous_vs_current'))
      return undefined;
    const judged = await judge(ctx, asked, options.signal);
    const { commit, value } = await inPipelinedTransaction(ctx.database, 'an evaluation of one descriptor', (tx) =>
      write(ctx, tx, asked, judged, options.audit),
    );
    if (!commit || !value) continue;
    recordReportEnd(value.ended);
    // The knowledge index's message is delivered once it is committed.
    if (value.announced) dispatchInBackground(ctx);
    return { finished: true, report: value.report };
  }
  throw new Error('an evaluation judged with entities read in its own call was not kept');
}

/** The report of one descriptor, made in the process (written once judged, finished), and its results. */
async function judge(ctx: GovernanceContext, { report, entities, type }: OneDescriptor, signal?: AbortSignal) {
  const { request } = report;
  if (request.mode !== 'descriptor') throw new Error('one descriptor is asked for');
  const created: ReportRow = {
    ...report,
    id: randomUUID(),
    status: 'running',
    outcome: null,
    passed: null,
    total: entities.length,
    done: entities.length,
    error: null,
    leaseUntil: null,
    attempts: 0,
    createdAt: new Date(),
    completedAt: null,
  };
  const run: RunContext = {
    database: ctx.database,
    settings: ctx.settings,
    report: created,
    environment: report.environment,
    perimeter: perimeterFrom(type, ctx.settings),
    timeouts: callerTargetTimeoutsOf(ctx.settings),
    signal,
  };
  const rows = await evaluateCandidates(run, entities, [{ identity: request.resource, descriptor: request.descriptor, deployed: undefined }]);
  return { created, rows, finished: { ...created, status: 'completed' as const, ...overallOutcome(rows.map((row) => row.outcome)) } };
}

/** Writes a judged report in `tx`; kept only if the entities it was judged with are still those in force (`commit`). */
async function write(
  ctx: GovernanceContext,
  tx: Transaction,
  asked: OneDescriptor,
  { created, rows, finished }: Awaited<ReturnType<typeof judge>>,
  audit?: CallAudit,
): Promise<PipelinedWork<{ report: EvaluationReport; ended: ReportRow; announced: boolean } | undefined>> {
  const local: GovernanceContext = { ...ctx, database: { ...ctx.database, db: tx as unknown as Database['db'] } };
  const announced = recordsHistory(created);
  // Sent together, run in order after the transaction's begin: one round trip for the check, the report, its results, the index's message and the call's audit records.
  const settled = await Promise.allSettled([
    asked.keptAt === undefined ? undefined : generationOf(local.database),
    new ReportRepository(local.database).createFinished(finished, tx),
    new ResultRepository(local.database).append(rows),
    announced ? announceKnowledgeChangeIn(local.database, tx, { type: 'results', id: created.id }) : undefined,
    audit?.within(tx, created.id),
  ]);
  // Judged with entities no longer in force: nothing is kept, whatever the writes made of them.
  const [generation] = settled;
  if (generation.status === 'fulfilled' && generation.value !== asked.keptAt) return { commit: false, value: undefined };
  const [, times, written] = valuesOf(settled);
  const ended: ReportRow = { ...finished, ...times };
  // The answer from what was written; read back only if the report was not this call's alone to write (never seen).
  const report =
    written.length === rows.length
      ? representWritten(
          ended,
          rows.map((row, index) => ({ ...row, resourceOwner: row.resourceOwner ?? null, ...written[index] })),
        )
      : await getEvaluationReport(local, created.id);
  return { commit: true, value: { report, ended, announced } };
}

/** The values of settled promises, in order; the first reason of one that was rejected is thrown. */
function valuesOf<T extends readonly PromiseSettledResult<unknown>[]>(settled: T): { [K in keyof T]: T[K] extends PromiseSettledResult<infer V> ? V : never } {
  for (const one of settled) if (one.status === 'rejected') throw one.reason;
  return settled.map((one) => (one as PromiseFulfilledResult<unknown>).value) as { [K in keyof T]: T[K] extends PromiseSettledResult<infer V> ? V : never };
}

/**
 * Evaluate API: the descriptor against every active deployment-time entity of its type and
 * environment. Unless the caller `speaksFor` the resource, a dry run: answered and kept with its
 * report, never the resource's state (docs/authorization.md, "Who may speak for a resource").
 */
export async function evaluate(
  ctx: GovernanceContext,
  input: EvaluateInput,
  { subject, speaksFor, waitMs, signal, audit }: { subject: string; speaksFor: boolean; waitMs: number; signal?: AbortSignal; audit?: CallAudit },
): Promise<Started> {
  if (waitMs > 0) {
    const direct = await evaluateInOneTransaction(ctx, (at, fresh) => evaluationOf(at, input, { subject, speaksFor }, fresh), { signal, audit });
    if (direct) return direct;
  }
  const { report } = await evaluationOf(ctx, input, { subject, speaksFor }, true);
  await audit?.ahead();
  return start(ctx, report, waitMs, signal);
}

/** What an Evaluate call asks: its report, with the active deployment-time entities of the descriptor's type and environment. */
async function evaluationOf(
  ctx: GovernanceContext,
  input: EvaluateInput,
  { subject, speaksFor }: { subject: string; speaksFor: boolean },
  fresh: boolean,
): Promise<OneDescriptor> {
  const kept = fresh ? undefined : await keptEvaluationSet(ctx, input.resourceType, input.environment);
  const { type, entities } = kept?.set ?? (await evaluationSetOf(ctx, input.resourceType, input.environment));
  const descriptor = parseDescriptor(input.descriptor);
  const resource = resourceIdentity(type, descriptor.value, { id: input.id, displayName: input.displayName, version: input.version });
  const request: ReportRequest = {
    mode: 'descriptor',
    entities: entities.map(({ id, version }) => ({ id, version })),
    resource,
    descriptor,
    ...(speaksFor ? {} : { dryRun: true as const }),
  };
  const report: OneDescriptor['report'] = {
    scope: 'resource',
    cause: 'evaluate',
    environment: input.environment,
    resourceType: type.name,
    labels: input.labels,
    request,
    createdBy: subject,
  };
  return { report, entities, type, keptAt: kept?.generation };
}

/**
 * A dry run of one version of a policy or metric (drafts included): against the descriptor given,
 * or against every resource the perimeter resolver lists for the environment. Its results stay
 * with its report and never enter the history.
 */
export async function testEntity(
  ctx: GovernanceContext,
  kind: EntityKind,
  id: string,
  input: PolicyTestInput,
  { subject, waitMs, version, signal, audit }: { subject: string; waitMs: number; version?: number; signal?: AbortSignal; audit?: CallAudit },
): Promise<Started> {
  const ask = (at: GovernanceContext) => entityTestOf(at, kind, id, input, { subject, version });
  if (waitMs > 0 && input.descriptor !== undefined) {
    const direct = await evaluateInOneTransaction(ctx, ask, { signal, audit });
    if (direct) return direct;
  }
  const { report } = await ask(ctx);
  await audit?.ahead();
  return start(ctx, report, waitMs, signal);
}

/** What a test of one version asks: its report (against the descriptor given, or the perimeter), with that version. */
async function entityTestOf(
  ctx: GovernanceContext,
  kind: EntityKind,
  id: string,
  input: PolicyTestInput,
  { subject, version }: { subject: string; version?: number },
): Promise<OneDescriptor> {
  const entity = await readEntityRow(ctx, kind, id, version);
  if (!entity.engine) throw new ConflictError(`This ${kind} has no engine (it is passive): there is nothing to run`);
  const type = await requireType(ctx, entity.resourceType);
  await requireKnownEnvironment(ctx, input.environment, 'environment');
  const entities = [{ id: entity.id, version: entity.version }];
  let request: ReportRequest;
  if (input.descriptor === undefined) {
    request = { mode: 'perimeter', entities };
  } else {
    const descriptor = parseDescriptor(input.descriptor);
    request = {
      mode: 'descriptor',
      entities,
      descriptor,
      resource: resourceIdentity(type, descriptor.value, { id: input.id, displayName: input.displayName, version: input.version }),
    };
  }
  const report: OneDescriptor['report'] = {
    scope: 'policy',
    cause: 'test',
    environment: input.environment,
    resourceType: type.name,
    labels: [],
    request,
    createdBy: subject,
  };
  return { report, entities: [entity], type };
}

export async function listResults(ctx: GovernanceContext, filters: ResultFilters, pagination: Pagination) {
  const { rows, total } = await new ResultRepository(ctx.database).list(filters, pagination);
  return listBody(rows.map(representResult), pagination, total);
}

/** The pairs the CUE evaluators judged differently (cue-config.evaluator = shadow), newest first. */
export async function listCueDisagreements(ctx: GovernanceContext, filters: DisagreementFilters, pagination: Pagination) {
  const { rows, total } = await new DisagreementRepository(ctx.database).list(filters, pagination);
  return listBody(rows.map(representDisagreement), pagination, total);
}

function representDisagreement(row: DisagreementRow): CueDisagreement {
  return {
    id: row.id,
    policyId: row.entityId,
    policyVersion: row.entityVersion,
    kind: row.entityKind,
    resourceId: row.resourceId,
    environment: row.environment,
    reportId: row.reportId,
    native: row.native,
    wasm: row.wasm,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A result pushed for a passive policy, against its active version. */
export async function recordPassiveResult(ctx: GovernanceContext, id: string, input: PassiveResultInput): Promise<EvaluationResult> {
  const database = ctx.database;
  const versions = await new EntityRepository(database).versions('policy', id);
  const latest = versions.at(-1);
  if (!latest) throw new NotFoundError(`No policy has the id ${id}`);
  const entity = versions.find((row) => row.status === 'enabled' || row.status === 'grace');
  if ((entity ?? latest).trigger !== 'passive') throw new ConflictError('Results can be pushed only for passive policies; this one is evaluated by its engine');
  if (!entity) throw new ConflictError('The policy has no enabled or grace version to record a result for; publish it first');
  if (entity.environment !== null && entity.environment !== input.environment) {
    throw new InvalidInput([{ path: 'environment', message: `the policy applies to the environment "${entity.environment}" only` }]);
  }
  await requireKnownEnvironment(ctx, input.environment, 'environment');
  const result = { satisfiesPolicy: input.satisfiesPolicy, isError: false, errors: input.errors, ...(input.details ? { details: input.details } : {}) };
  const waived = input.satisfiesPolicy
    ? new Set<string>()
    : await new ExceptionRepository(database).waivedPairs([entity.id], input.environment, [input.resource.id]);
  const row = await new ResultRepository(database).add({
    reportId: null,
    recorded: true,
    entityId: entity.id,
    entityVersion: entity.version,
    entityKind: 'policy',
    entityStatus: entity.status,
    severity: entity.severity,
    outcome: outcomeOf(result, entity, waived.has(pairKey(entity.id, input.resource.id))),
    resourceId: input.resource.id,
    resourceDisplayName: input.resource.displayName ?? null,
    resourceVersion: input.resource.version ?? null,
    environment: input.environment,
    resourceType: entity.resourceType,
    result,
    value: null,
  });
  await announceKnowledgeChange(ctx, { type: 'results', id: entity.id });
  return representResult(row);
}
