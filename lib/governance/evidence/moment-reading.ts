import { type SQL, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';

import { type Outcome, OUTCOMES } from '../evaluation/outcome';
import type { PackPolicy } from './pack-format';

/** What a pack covers: null, every one. */
export interface PackScope {
  readonly environments: readonly string[] | null;
  readonly resourceTypes: readonly string[] | null;
}

/** A policy or metric version in force at the moment, as the status history kept it (governance_entity_statuses), with its script. */
export type VersionInForce = Omit<PackPolicy, 'script' | 'scriptSha256'> & {
  readonly cueScript: string | null;
  readonly remoteEngineUrl: string | null;
  readonly llmRule: string | null;
};

export interface VerdictAtMoment {
  readonly environment: string;
  readonly resourceType: string;
  readonly resourceId: string;
  readonly resourceDisplayName: string | null;
  readonly resourceOwner: string | null;
  readonly policyId: string;
  readonly kind: 'policy' | 'metric';
  readonly version: number;
  readonly outcome: Outcome;
  /** As the version in force at the moment judged it (docs/governance.md, "Compliance"). */
  readonly judged: Outcome;
  readonly errors: readonly string[];
  readonly value: number | null;
  readonly evaluatedAt: string;
  readonly reportId: string | null;
}

export interface ExceptionAtMoment {
  readonly id: string;
  readonly policyId: string;
  readonly kind: 'policy' | 'metric';
  readonly resourceId: string;
  readonly environment: string | null;
  readonly reason: string;
  readonly ticket: string | null;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly expiresAt: string;
  /** When it was deleted, if it was (after the moment). */
  readonly removedAt: string | null;
  /** The four-eyes request it came from, when it did. */
  readonly approval: ApprovalAtMoment | null;
}

export interface ApprovalAtMoment {
  readonly id: string;
  readonly kind: string;
  readonly policyId: string | null;
  readonly policyName: string | null;
  readonly version: number | null;
  readonly request: Record<string, unknown>;
  readonly requestedBy: string;
  readonly requestedAt: string;
  readonly decidedBy: string | null;
  readonly decidedAt: string | null;
  readonly comment: string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

/** `column` within `names` (null: any). */
const within = (column: SQL, names: readonly string[] | null): SQL => (names ? sql`${column} = any(${sql.param([...names])}::text[])` : sql`true`);

/** The judged outcome of a stored one, by the status and severity of the version in force (outcome.ts's rules). */
function judged(outcome: Outcome, version: VersionInForce): Outcome {
  if (outcome === 'ok' || outcome === 'waived' || outcome === 'failed') return outcome;
  if (version.severity === 'info') return 'info';
  return version.status === 'grace' ? 'warning' : version.severity;
}

type Row = Record<string, unknown>;

/** A verdict of the version in force from its evaluation_results row. */
function verdictOf(row: Row, version: VersionInForce): VerdictAtMoment {
  const outcome = row.outcome as Outcome;
  const result = (row.result ?? {}) as { errors?: string[] };
  return {
    environment: row.environment as string,
    resourceType: row.resource_type as string,
    resourceId: row.resource_id as string,
    resourceDisplayName: (row.resource_display_name as string | null) ?? null,
    resourceOwner: (row.resource_owner as string | null) ?? null,
    policyId: version.id,
    kind: row.entity_kind as VerdictAtMoment['kind'],
    version: row.entity_version as number,
    outcome,
    judged: judged(outcome, version),
    errors: result.errors ?? [],
    value: (row.value as number | null) ?? null,
    evaluatedAt: iso(row.created_at as Date),
    reportId: (row.report_id as string | null) ?? null,
  };
}

/** The approval of a row whose approvals columns are named `<prefix><column>`. */
function approvalOf(row: Row, prefix = ''): ApprovalAtMoment {
  const value = <T>(column: string) => (row[`${prefix}${column}`] ?? null) as T;
  return {
    id: value('id'),
    kind: value('kind'),
    policyId: value('entity_id'),
    policyName: value('entity_name'),
    version: value('version'),
    request: value('request'),
    requestedBy: value('requested_by'),
    requestedAt: iso(value<Date>('requested_at')),
    decidedBy: value('decided_by'),
    decidedAt: isoOrNull(value<Date | null>('decided_at')),
    comment: value('comment'),
  };
}

/**
 * The history of one past moment (docs/evidence.md): what was in force, the newest verdicts, the
 * exceptions active and the approvals, as the database kept them.
 */
export class MomentReading {
  constructor(
    private readonly database: Database,
    private readonly at: Date,
    private readonly scope: PackScope,
  ) {}

  /**
   * Every version enabled or in grace at the moment, of the scope's resource types and of its
   * environments (or of every environment): the newest status each version took at or before it.
   */
  async versionsInForce(): Promise<VersionInForce[]> {
    const { entityStatuses } = this.database.tables;
    const rows = await this.database.db.execute<Row>(sql`
      select h.entity_id, h.version, h.status, h.since, h.changed_by, h.entity from (
        select distinct on (entity_id, version) * from ${entityStatuses}
        where since <= ${this.at.toISOString()}::timestamptz order by entity_id, version, since desc, id desc
      ) h
      where h.status in ('enabled', 'grace') and ${within(sql`h.entity->>'resource_type'`, this.scope.resourceTypes)}
        and (h.entity->>'environment' is null or ${within(sql`h.entity->>'environment'`, this.scope.environments)})
      order by h.entity->>'kind', lower(h.entity->>'name'), h.entity_id, h.version`);
    return rows.map((row) => {
      const entity = row.entity as Row;
      return {
        id: row.entity_id as string,
        kind: entity.kind as VersionInForce['kind'],
        name: entity.name as string,
        version: row.version as number,
        status: row.status as VersionInForce['status'],
        severity: entity.severity as VersionInForce['severity'],
        environment: (entity.environment as string | null) ?? null,
        resourceType: entity.resource_type as string,
        engine: (entity.engine as VersionInForce['engine']) ?? null,
        since: iso(row.since as Date),
        changedBy: row.changed_by as string,
        cueScript: (entity.cue_script as string | null) ?? null,
        remoteEngineUrl: (entity.remote_engine_url as string | null) ?? null,
        llmRule: (entity.llm_rule as string | null) ?? null,
      };
    });
  }

  /**
   * The newest recorded result, at or before the moment, of every (resource, environment) of each
   * version in force, in the scope's environments, a page at a time: by policy (in the order of
   * `versions`), then resource and environment. A page is a range of the index of the newest results
   * (evaluation_results_latest), so no page reads the whole history and nothing holds every verdict.
   */
  async *verdictPages(versions: readonly VersionInForce[], pageSize = 5_000): AsyncGenerator<VerdictAtMoment[]> {
    const { evaluationResults: results } = this.database.tables;
    const byId = new Map(versions.map((version) => [version.id, version]));
    for (const version of byId.values()) {
      let after: { resourceId: string; environment: string } | undefined;
      do {
        const rows = await this.database.db.execute<Row>(sql`
          select distinct on (r.resource_id, r.environment)
            r.entity_kind, r.entity_version, r.resource_id, r.resource_display_name, r.resource_owner, r.environment,
            r.resource_type, r.outcome, r.result, r.value, r.created_at, r.report_id
          from ${results} r
          where r.recorded and r.entity_id = ${version.id} and r.created_at <= ${this.at.toISOString()}::timestamptz
            and ${within(sql`r.environment`, this.scope.environments)}
            ${after ? sql`and (r.resource_id, r.environment) > (${after.resourceId}, ${after.environment})` : sql``}
          order by r.resource_id, r.environment, r.id desc
          limit ${pageSize}`);
        if (rows.length > 0) yield rows.map((row) => verdictOf(row, version));
        const last = rows.at(-1);
        after = rows.length === pageSize && last ? { resourceId: last.resource_id as string, environment: last.environment as string } : undefined;
      } while (after);
    }
  }

  /**
   * The exceptions of the policies in force active at the moment (created at or before it, expiring
   * after it, not deleted by then), deleted ones included, in the scope's environments (or of every
   * environment), each with the four-eyes request it came from.
   */
  async exceptions(versions: readonly VersionInForce[]): Promise<ExceptionAtMoment[]> {
    const ids = [...new Set(versions.map((version) => version.id))];
    if (ids.length === 0) return [];
    const { governanceExceptions: exceptions, removedExceptions: removed, approvals } = this.database.tables;
    const at = sql`${this.at.toISOString()}::timestamptz`;
    const rows = await this.database.db.execute<Row>(sql`
      with active as (
        select e.*, null::timestamptz as removed_at from ${exceptions} e
        union all
        select (jsonb_populate_record(null::${exceptions}, x.exception)).*, x.removed_at from ${removed} x
      )
      select e.*, a.id as approval_id, a.kind as approval_kind, a.entity_id as approval_entity_id, a.entity_name as approval_entity_name,
        null::int as approval_version, a.request as approval_request, a.requested_by as approval_requested_by, a.requested_at as approval_requested_at,
        a.decided_by as approval_decided_by, a.decided_at as approval_decided_at, a.comment as approval_comment
      from active e
      left join ${approvals} a on a.kind = 'exception' and a.status = 'approved' and a.outcome->>'exceptionId' = e.id::text
      where e.entity_id = any(${sql.param(ids)}::uuid[]) and e.created_at <= ${at} and e.expires_at > ${at}
        and (e.removed_at is null or e.removed_at > ${at})
        and (e.environment is null or ${within(sql`e.environment`, this.scope.environments)})
      order by e.created_at, e.id`);
    return rows.map((row) => ({
      id: row.id as string,
      policyId: row.entity_id as string,
      kind: row.entity_kind as ExceptionAtMoment['kind'],
      resourceId: row.resource_id as string,
      environment: (row.environment as string | null) ?? null,
      reason: row.reason as string,
      ticket: (row.ticket as string | null) ?? null,
      createdAt: iso(row.created_at as Date),
      createdBy: row.created_by as string,
      expiresAt: iso(row.expires_at as Date),
      removedAt: isoOrNull(row.removed_at as Date | null),
      approval: row.approval_id ? approvalOf(row, 'approval_') : null,
    }));
  }

  /** The four-eyes requests approved at or before the moment that put the versions in force where they were (publish, status move, rollout). */
  async approvals(versions: readonly VersionInForce[]): Promise<ApprovalAtMoment[]> {
    if (versions.length === 0) return [];
    const { approvals } = this.database.tables;
    const pairs = versions.map((version) => `${version.id}:${version.version}`);
    const rows = await this.database.db.execute<Row>(sql`
      select a.*, coalesce(a.outcome->>'version', a.request->>'version')::int as version from ${approvals} a
      where a.kind in ('publish', 'status', 'rollout') and a.status = 'approved' and a.decided_at <= ${this.at.toISOString()}::timestamptz
        and a.entity_id::text || ':' || coalesce(a.outcome->>'version', a.request->>'version') = any(${sql.param(pairs)}::text[])
      order by a.decided_at, a.id`);
    return rows.map((row) => approvalOf(row));
  }
}

/** A resource's worst judged outcome so far, as its rank in OUTCOMES. */
interface Worst {
  readonly environment: string;
  readonly resourceType: string;
  rank: number;
}

/** Resource counts by their worst outcome, as the compliance summary has them. */
function resourceCounts(resources: Iterable<Worst>) {
  const byWorstOutcome = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as Record<Outcome, number>;
  for (const { rank } of resources) byWorstOutcome[OUTCOMES[rank]] += 1;
  const total = Object.values(byWorstOutcome).reduce((sum, count) => sum + count, 0);
  const failing = byWorstOutcome.error + byWorstOutcome.failed;
  return { total, passing: total - failing, failing, byWorstOutcome };
}

/**
 * The compliance of verdicts told one at a time (docs/governance.md, "Compliance"): resources by their
 * worst judged outcome, in all and per environment and type, and the verdicts by outcome. It keeps a
 * rank per resource, not the verdicts.
 */
export class ComplianceTally {
  private readonly worst = new Map<string, Worst>();
  private readonly outcomes = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as Record<Outcome, number>;
  private verdicts = 0;

  add(verdict: VerdictAtMoment): void {
    this.verdicts += 1;
    this.outcomes[verdict.judged] += 1;
    const key = JSON.stringify([verdict.environment, verdict.resourceType, verdict.resourceId]);
    const rank = OUTCOMES.indexOf(verdict.judged);
    const seen = this.worst.get(key);
    if (!seen) this.worst.set(key, { environment: verdict.environment, resourceType: verdict.resourceType, rank });
    else seen.rank = Math.max(seen.rank, rank);
  }

  summary() {
    const groups = new Map<string, Worst[]>();
    for (const resource of this.worst.values()) {
      const key = JSON.stringify([resource.environment, resource.resourceType]);
      const group = groups.get(key);
      if (group) group.push(resource);
      else groups.set(key, [resource]);
    }
    return {
      resources: resourceCounts(this.worst.values()),
      outcomes: { total: this.verdicts, ...this.outcomes },
      byEnvironmentAndResourceType: [...groups.values()]
        .map((resources) => ({ environment: resources[0].environment, resourceType: resources[0].resourceType, resources: resourceCounts(resources) }))
        .sort((a, b) => a.environment.localeCompare(b.environment) || a.resourceType.localeCompare(b.resourceType)),
    };
  }
}
