import { and, asc, desc, eq, gt, lt, or, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';
import { deleteSome } from '#lib/db/purge';
import { inTransaction, type Transaction } from '#lib/db/transaction';

import { type Change, CHANGES, type ImpactCounts } from './impact';

export type ImpactRow = Database['tables']['impactReports']['$inferSelect'];
type ResourceRow = Database['tables']['impactResources']['$inferSelect'];

/** What an impact report says once its run ended: its counts, per environment, per owner and (a metric) per move between thresholds. */
export interface ImpactSummary {
  counts: ImpactCounts;
  byEnvironment: (ImpactCounts & { environment: string })[];
  byOwner: (ImpactCounts & { owner: string | null })[];
  byThreshold: ThresholdMove[];
}

/** How many resources of a metric go from the threshold the live version's value fell in to the candidate's (null: in none, or not judged). */
export type ThresholdMove = {
  baselineThreshold: string | null;
  candidateThreshold: string | null;
  count: number;
};

const zero = (): ImpactCounts => Object.fromEntries(CHANGES.map((change) => [change, 0])) as ImpactCounts;
/** Outcomes that satisfy the policy (a waived failure included): anything else fails it. */
const PASSING = sql.raw(`('ok', 'waived')`);

export class ImpactRepository {
  constructor(private readonly database: Database) {}

  async create(values: Omit<ImpactRow, 'id' | 'summary' | 'createdAt'>, tx: Pick<Transaction, 'insert'>): Promise<ImpactRow> {
    const [row] = await tx.insert(this.database.tables.impactReports).values(values).returning();
    return row;
  }

  /** The newest impact report of a version. */
  async newestOf(entityId: string, version: number): Promise<ImpactRow | undefined> {
    const t = this.database.tables.impactReports;
    const [row] = await this.database.db
      .select()
      .from(t)
      .where(and(eq(t.entityId, entityId), eq(t.candidateVersion, version)))
      .orderBy(desc(t.createdAt))
      .limit(1);
    return row;
  }

  async find(id: string): Promise<ImpactRow | undefined> {
    const t = this.database.tables.impactReports;
    const [row] = await this.database.db.select().from(t).where(eq(t.id, id));
    return row;
  }

  /**
   * Compares each result of the impact's run with the newest recorded result of the baseline
   * version for the same resource and environment, writes every resource with its change, and the
   * summary. Once: a second call (another reader at the same time) finds it written.
   */
  summarize(impact: ImpactRow): Promise<ImpactSummary> {
    const { impactReports: reports, impactResources: resources, evaluationResults: results } = this.database.tables;
    return inTransaction(this.database, 'impact summary', async (tx) => {
      const [locked] = await tx.select().from(reports).where(eq(reports.id, impact.id)).for('update');
      if (locked.summary) return locked.summary as unknown as ImpactSummary;
      await tx.execute(sql`
        insert into ${resources} (impact_report_id, change, environment, resource_id, owner, candidate_outcome, baseline_outcome, errors,
          candidate_value, baseline_value, candidate_threshold, baseline_threshold)
        select ${impact.id}::uuid,
          case when b.outcome is null then 'notEvaluated'
               when c.outcome in ${PASSING} and b.outcome in ${PASSING} then 'stillPassing'
               when c.outcome in ${PASSING} then 'newlyPassing'
               when b.outcome in ${PASSING} then 'newlyFailing'
               else 'stillFailing' end,
          c.environment, c.resource_id, c.resource_owner, c.outcome, b.outcome, coalesce(c.result -> 'errors', '[]'::jsonb),
          c.value, b.value, c.result -> 'threshold' ->> 'label', b.result -> 'threshold' ->> 'label'
        from ${results} c
        left join lateral (
          select r.outcome, r.value, r.result from ${results} r
          where r.recorded and r.entity_id = c.entity_id and r.resource_id = c.resource_id and r.environment = c.environment
            and r.entity_version = ${impact.baselineVersion}
          order by r.id desc limit 1
        ) b on true
        where c.report_id = ${impact.evaluationReportId}::uuid
        on conflict do nothing`);
      const rows = await tx.execute<{ environment: string; owner: string | null; change: Change; count: number }>(sql`
        select environment, owner, change, count(*)::int as count from ${resources} where impact_report_id = ${impact.id}::uuid
        group by environment, owner, change`);
      const moves =
        impact.entityKind === 'metric'
          ? await tx.execute<ThresholdMove>(sql`
              select baseline_threshold as "baselineThreshold", candidate_threshold as "candidateThreshold", count(*)::int as count
              from ${resources} where impact_report_id = ${impact.id}::uuid group by 1, 2`)
          : [];
      const summary = summaryOf(
        rows as unknown as { environment: string; owner: string | null; change: Change; count: number }[],
        moves as unknown as ThresholdMove[],
      );
      await tx
        .update(reports)
        .set({ summary: summary as unknown as Record<string, unknown> })
        .where(eq(reports.id, impact.id));
      return summary;
    });
  }

  /** Deletes up to `limit` impact reports made before `before` (retention.reports), their resources with them; answers how many. */
  purgeOlder(before: Date, limit: number): Promise<number> {
    const t = this.database.tables.impactReports;
    return deleteSome(this.database, t, lt(t.createdAt, before), limit);
  }

  /**
   * Up to `limit` resources of the report (of one change, or all; with `thresholdChanged`, only a
   * metric's resources whose threshold changed), by environment and id, after the cursor.
   */
  async resources(
    impactId: string,
    filter: { change?: Change; thresholdChanged?: boolean },
    limit: number,
    after?: { environment: string; resourceId: string },
  ): Promise<ResourceRow[]> {
    const t = this.database.tables.impactResources;
    return this.database.db
      .select()
      .from(t)
      .where(
        and(
          eq(t.impactReportId, impactId),
          filter.change ? eq(t.change, filter.change) : undefined,
          filter.thresholdChanged ? sql`${t.baselineThreshold} is distinct from ${t.candidateThreshold}` : undefined,
          after ? or(gt(t.environment, after.environment), and(eq(t.environment, after.environment), gt(t.resourceId, after.resourceId))) : undefined,
        ),
      )
      .orderBy(asc(t.environment), asc(t.resourceId))
      .limit(limit);
  }
}

/** Code-point order: the same in every locale. */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Names in code-point order, null (none) last. */
const labelOrder = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : byName(a, b));

function summaryOf(
  rows: readonly { environment: string; owner: string | null; change: Change; count: number }[],
  moves: readonly ThresholdMove[],
): ImpactSummary {
  const counts = zero();
  const byEnvironment = new Map<string, ImpactCounts>();
  const byOwner = new Map<string | null, ImpactCounts>();
  for (const { environment, owner, change, count } of rows) {
    counts[change] += count;
    if (!byEnvironment.has(environment)) byEnvironment.set(environment, zero());
    (byEnvironment.get(environment) as ImpactCounts)[change] += count;
    if (!byOwner.has(owner)) byOwner.set(owner, zero());
    (byOwner.get(owner) as ImpactCounts)[change] += count;
  }
  return {
    counts,
    byEnvironment: [...byEnvironment].sort(([a], [b]) => byName(a, b)).map(([environment, c]) => ({ environment, ...c })),
    // The owners most newly failing first, then by name (the unnamed last).
    byOwner: [...byOwner].sort(([a, x], [b, y]) => y.newlyFailing - x.newlyFailing || labelOrder(a, b)).map(([owner, c]) => ({ owner, ...c })),
    // The moves first (the largest first), then the resources that stay where they were.
    byThreshold: [...moves].sort(
      (x, y) =>
        Number(x.baselineThreshold === x.candidateThreshold) - Number(y.baselineThreshold === y.candidateThreshold) ||
        y.count - x.count ||
        labelOrder(x.baselineThreshold, y.baselineThreshold) ||
        labelOrder(x.candidateThreshold, y.candidateThreshold),
    ),
  };
}
