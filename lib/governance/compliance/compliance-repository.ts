import { type SQL, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { inTransaction } from '#lib/db/transaction';

import { type Outcome, OUTCOMES } from '../evaluation/outcome';
import type { ComplianceFilters, ComplianceSummary, OutcomeCounts, ResourceCounts } from './compliance';

/** Counts of resources by their worst outcome, as PostgreSQL answers them (bigint counts come as text). */
type WorstCounts = Record<Outcome, string | number>;

function resourceCounts(row: WorstCounts): ResourceCounts {
  const byWorstOutcome = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Number(row[outcome])])) as Record<Outcome, number>;
  const failing = byWorstOutcome.error + byWorstOutcome.failed;
  const total = OUTCOMES.reduce((sum, outcome) => sum + byWorstOutcome[outcome], 0);
  return { total, passing: total - failing, failing, byWorstOutcome };
}

function outcomeCounts(row: Partial<WorstCounts> | null): OutcomeCounts {
  const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Number(row?.[outcome] ?? 0)])) as Record<Outcome, number>;
  return { total: OUTCOMES.reduce((sum, outcome) => sum + counts[outcome], 0), ...counts };
}

/** `count(*) filter (where <rank> = 0) as ok, …` for every outcome, `rank` being its index in OUTCOMES. */
const countsByRank = (rank: SQL, count: SQL = sql`count(*)`) =>
  sql.join(
    OUTCOMES.map((outcome, index) => sql`coalesce(${count} filter (where ${rank} = ${sql.raw(String(index))}), 0) as ${sql.identifier(outcome)}`),
    sql`, `,
  );

/**
 * The outcome a result stored as `outcome` has now, by the status and severity of its entity `e`
 * (lib/governance/evaluation/outcome.ts), as its index in OUTCOMES: ranks compare and count cheaply.
 * `ok`, `waived` and `failed` stay as they are (a waiver holds until the pair's next evaluation).
 */
const judgedRank = (outcome: SQL) => {
  const rank = (name: Outcome) => sql.raw(String(OUTCOMES.indexOf(name)));
  return sql`case when ${outcome} = 'ok' then ${rank('ok')} when ${outcome} = 'waived' then ${rank('waived')} when ${outcome} = 'failed' then ${rank('failed')}
    when e.severity = 'info' then ${rank('info')} when e.status = 'grace' then ${rank('warning')}
    when e.severity = 'warning' then ${rank('warning')} else ${rank('error')} end`;
};

interface PolicyRow extends Record<Outcome, string> {
  id: string;
  name: string;
  kind: 'policy' | 'metric';
  version: number;
  status: 'enabled' | 'grace';
  severity: 'info' | 'warning' | 'error';
  resource_type: string;
}

type Filters = ComplianceFilters & { policyId?: string };

const NONE = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as WorstCounts;

/**
 * The aggregation behind the compliance endpoints, in SQL. The rules (docs/governance.md,
 * "Compliance"): a pair is a (policy or metric, resource, environment); only the newest result of a
 * pair counts, and only for an entity with an enabled or grace version; that version's status and
 * severity judge it as the outcome rules do; a resource is failing when one of its counted results
 * is error or failed.
 */
export class ComplianceRepository {
  constructor(private readonly database: Database) {}

  /** The filters, on the pairs `l`. */
  private pairsWhere(filters: Filters): SQL {
    const conditions: SQL[] = [sql`true`];
    if (filters.environment) conditions.push(sql`l.environment = ${filters.environment}`);
    if (filters.resourceType) conditions.push(sql`l.resource_type = ${filters.resourceType}`);
    if (filters.policyId) conditions.push(sql`l.entity_id = ${filters.policyId}`);
    return sql.join(conditions, sql` and `);
  }

  /** `l` (a source of pairs: entity_id, resource_id, environment, resource_type, outcome) joined with its enabled or grace entity `e`, filtered. */
  private counted(latest: SQL, filters: Filters): SQL {
    const { governanceEntities: entities } = this.database.tables;
    return sql`${latest} l join ${entities} e on e.id = l.entity_id and e.status in ('enabled', 'grace') where ${this.pairsWhere(filters)}`;
  }

  /** `resources` (environment, resource_type, worst): each resource of the counted pairs with the rank of its worst outcome. */
  private resources(latest: SQL, filters: Filters): SQL {
    return sql`resources as (
        select l.environment, l.resource_type, max(${judgedRank(sql`l.outcome`)}) as worst
        from ${this.counted(latest, filters)} group by l.environment, l.resource_type, l.resource_id
      )`;
  }

  /** The summary over the newest result of every pair (latest_results), judged now. */
  async summary(filters: Filters, top: number): Promise<Omit<ComplianceSummary, 'computedAt'>> {
    const { latestResults, governanceEntities: entities } = this.database.tables;
    const [row] = await this.database.db.execute<{
      breakdown: (WorstCounts & { environment: string | null; resource_type: string | null; level: number })[] | null;
      outcomes: WorstCounts;
      policies: PolicyRow[] | null;
    }>(
      sql`with ${this.resources(sql`${latestResults}`, filters)},
        breakdown as (
          select environment, resource_type, grouping(environment, resource_type) as level, ${countsByRank(sql`worst`)}
          from resources group by grouping sets ((), (environment), (resource_type), (environment, resource_type))
        ),
        -- Per entity, its counted pairs by the outcome they have now: counted by stored outcome first, then judged, a few rows.
        entity_outcomes as (
          select e.id, e.name, e.kind, e.version, e.status, e.severity, e.resource_type, ${judgedRank(sql`l.outcome`)} as rank, sum(l.pairs) as pairs
          from (select l.entity_id, l.outcome, count(*) as pairs from ${latestResults} l where ${this.pairsWhere(filters)} group by l.entity_id, l.outcome) l
          join ${entities} e on e.id = l.entity_id and e.status in ('enabled', 'grace')
          group by e.id, e.name, e.kind, e.version, e.status, e.severity, e.resource_type, rank
        ),
        policies as (
          select id, name, kind, version, status, severity, resource_type, ${countsByRank(sql`rank`, sql`sum(pairs)`)},
            coalesce(sum(pairs) filter (where rank >= ${sql.raw(String(OUTCOMES.indexOf('error')))}), 0) as failing,
            coalesce(sum(pairs) filter (where rank > ${sql.raw(String(OUTCOMES.indexOf('waived')))}), 0) as findings
          from entity_outcomes group by id, name, kind, version, status, severity, resource_type
        )
        select
          (select json_agg(b order by b.environment nulls first, b.resource_type nulls first) from breakdown b) as breakdown,
          (select row_to_json(o) from (select ${countsByRank(sql`rank`, sql`sum(pairs)`)} from entity_outcomes) o) as outcomes,
          (select json_agg(p order by p.failing desc, p.findings desc, p.name, p.id)
            from (select * from policies where findings > 0 order by failing desc, findings desc, name, id limit ${top}) p) as policies`,
    );
    const breakdown = row.breakdown ?? [];
    // grouping(environment, resource_type): 3 = the whole, 1 = per environment, 2 = per type, 0 = per both.
    const at = (level: number) => breakdown.filter((group) => group.level === level);
    return {
      resources: resourceCounts(at(3)[0] ?? NONE),
      outcomes: outcomeCounts(row.outcomes),
      byEnvironment: at(1).map((group) => ({ environment: group.environment as string, resources: resourceCounts(group) })),
      byResourceType: at(2).map((group) => ({ resourceType: group.resource_type as string, resources: resourceCounts(group) })),
      byEnvironmentAndResourceType: at(0).map((group) => ({
        environment: group.environment as string,
        resourceType: group.resource_type as string,
        resources: resourceCounts(group),
      })),
      topFailingPolicies: (row.policies ?? []).map((policy) => ({
        id: policy.id,
        name: policy.name,
        kind: policy.kind,
        version: policy.version,
        status: policy.status,
        severity: policy.severity,
        resourceType: policy.resource_type,
        outcomes: outcomeCounts(policy),
      })),
    };
  }

  /** The resources of the summary alone (the trend's today). */
  async resourcesNow(filters: ComplianceFilters): Promise<ResourceCounts> {
    const [row] = await this.database.db.execute<WorstCounts>(
      sql`with ${this.resources(sql`${this.database.tables.latestResults}`, filters)} select ${countsByRank(sql`worst`)} from resources`,
    );
    return resourceCounts(row);
  }

  /** The day (UTC, YYYY-MM-DD) of the oldest recorded result, if any. */
  async firstResultDay(): Promise<string | null> {
    const results = this.database.tables.evaluationResults;
    const [row] = await this.database.db.execute<{ day: string }>(
      sql`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day from ${results} where recorded order by id limit 1`,
    );
    return row?.day ?? null;
  }

  /** The days of [first, last] not recorded yet, newest first, at most `limit`. */
  async unrecordedDays(first: string, last: string, limit: number): Promise<string[]> {
    const { complianceSnapshotDays: days } = this.database.tables;
    const rows = await this.database.db.execute<{ day: string }>(
      sql`select to_char(d, 'YYYY-MM-DD') as day from generate_series(${first}::date, ${last}::date, interval '1 day') d
        where not exists (select 1 from ${days} s where s.day = d::date) order by d desc limit ${limit}`,
    );
    return rows.map((row) => row.day);
  }

  /**
   * Records the compliance at the end of `day` (UTC) from the history: the newest result of each
   * pair written before the next midnight, judged by the entities as they are now. False when the
   * day was recorded already (by another run).
   */
  async recordDay(day: string): Promise<boolean> {
    const { evaluationResults: results, governanceEntities: entities, complianceSnapshotDays: days, complianceDays } = this.database.tables;
    return inTransaction(this.database, 'ComplianceRepository.recordDay', async (tx) => {
      const claimed = await tx.execute(sql`insert into ${days} (day) values (${day}) on conflict do nothing returning day`);
      if (claimed.length === 0) return false;
      const asOf = sql`(select distinct on (r.entity_id, r.resource_id, r.environment) r.entity_id, r.resource_id, r.environment, r.resource_type, r.outcome
        from ${results} r
        where r.recorded and r.created_at < (${day}::date + 1)::timestamp at time zone 'UTC'
          and r.entity_id = any(array(select id from ${entities} where status in ('enabled', 'grace')))
        order by r.entity_id, r.resource_id, r.environment, r.id desc)`;
      await tx.execute(
        sql`insert into ${complianceDays} (day, environment, resource_type, ${sql.join(
          OUTCOMES.map((outcome) => sql.identifier(outcome)),
          sql`, `,
        )})
        with ${this.resources(asOf, {})}
        select ${day}::date, environment, resource_type, ${countsByRank(sql`worst`)} from resources group by environment, resource_type`,
      );
      return true;
    });
  }

  /**
   * Each past day of [from, to] with its recorded compliance, null when not recorded; days before
   * the first result (every day, when there is none) have nothing to record and count nothing.
   */
  async recordedDays(filters: ComplianceFilters, from: string, to: string): Promise<{ date: string; resources: ResourceCounts | null }[]> {
    const first = await this.firstResultDay();
    const { complianceSnapshotDays: days, complianceDays } = this.database.tables;
    const conditions: SQL[] = [sql`c.day = d::date`];
    if (filters.environment) conditions.push(sql`c.environment = ${filters.environment}`);
    if (filters.resourceType) conditions.push(sql`c.resource_type = ${filters.resourceType}`);
    const rows = await this.database.db.execute<WorstCounts & { date: string; recorded: boolean }>(
      sql`select to_char(d, 'YYYY-MM-DD') as date, s.day is not null or d < ${first ? sql`${first}::date` : sql`${to}::date + 1`} as recorded,
          ${sql.join(
            OUTCOMES.map((outcome) => sql`coalesce(sum(c.${sql.identifier(outcome)}), 0) as ${sql.identifier(outcome)}`),
            sql`, `,
          )}
        from generate_series(${from}::date, ${to}::date, interval '1 day') d
        left join ${days} s on s.day = d::date
        left join ${complianceDays} c on ${sql.join(conditions, sql` and `)}
        group by d, s.day order by d`,
    );
    return rows.map((row) => ({ date: row.date, resources: row.recorded ? resourceCounts(row) : null }));
  }
}
