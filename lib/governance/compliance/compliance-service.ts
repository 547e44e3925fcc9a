import type { Database } from '#lib/db/client';
import { InvalidInput } from '#lib/errors/domain-errors';

import type { GovernanceContext } from '../context';
import { type ComplianceSummary, type ComplianceTrend, MAX_TREND_DAYS, type SummaryQuery, type TrendQuery } from './compliance';
import { ComplianceRepository } from './compliance-repository';

/** The trend's length when neither `days` nor `from` says. */
const DEFAULT_TREND_DAYS = 30;
/** Past days recorded per run of the complianceSnapshotter (about a second each on a million results). */
const DAYS_PER_RUN = 31;

const DAY_MS = 86_400_000;
const dayOf = (time: Date) => time.toISOString().slice(0, 10);
const addDays = (day: string, days: number) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

export async function getComplianceSummary(ctx: GovernanceContext, query: SummaryQuery, now = new Date()): Promise<ComplianceSummary> {
  const { top, ...filters } = query;
  const summary = await new ComplianceRepository(ctx.database).summary(filters, top);
  return { ...summary, computedAt: now.toISOString() };
}

/** The days asked: `days` up to today, or [from, to] (to defaults to today, from to 29 days before it). */
function trendDays(query: TrendQuery, today: string): { from: string; to: string } {
  if (query.days !== undefined) return { from: addDays(today, 1 - query.days), to: today };
  const to = query.to ?? today;
  if (to > today) throw new InvalidInput([{ path: 'query.to', message: `to must not be after today (${today}, UTC)` }]);
  const from = query.from ?? addDays(to, 1 - DEFAULT_TREND_DAYS);
  if (from > to) throw new InvalidInput([{ path: 'query.from', message: 'from must not be after to' }]);
  if (daysBetween(from, to) >= MAX_TREND_DAYS) throw new InvalidInput([{ path: 'query.from', message: `from and to span more than ${MAX_TREND_DAYS} days` }]);
  return { from, to };
}

/** Per day, the compliance at its end: recorded days from compliance_days, today from the latest results. */
export async function getComplianceTrend(ctx: GovernanceContext, query: TrendQuery, now = new Date()): Promise<ComplianceTrend> {
  const today = dayOf(now);
  const { from, to } = trendDays(query, today);
  const repository = new ComplianceRepository(ctx.database);
  const { environment, resourceType } = query;
  const yesterday = addDays(today, -1);
  const past = from <= yesterday ? await repository.recordedDays({ environment, resourceType }, from, to < today ? to : yesterday) : [];
  const days = to === today ? [...past, { date: today, resources: await repository.resourcesNow({ environment, resourceType }) }] : past;
  return { from, to, days };
}

/**
 * Records the compliance of the past days not recorded yet (from the first result, at most a trend's
 * length back), newest first, DAYS_PER_RUN at most. Answers how many it recorded.
 */
export async function recordComplianceDays(database: Database, now = new Date()): Promise<number> {
  const repository = new ComplianceRepository(database);
  const first = await repository.firstResultDay();
  const yesterday = addDays(dayOf(now), -1);
  if (!first || first > yesterday) return 0;
  const oldest = addDays(yesterday, 1 - MAX_TREND_DAYS);
  let recorded = 0;
  for (const day of await repository.unrecordedDays(first > oldest ? first : oldest, yesterday, DAYS_PER_RUN)) {
    if (await repository.recordDay(day)) recorded++;
  }
  return recorded;
}

/**
 * Until when the results history may be thinned out without changing the trend: the start (UTC) of
 * the oldest day of the trend's window the snapshotter has not recorded yet, today's start when it
 * recorded them all. A day recorded keeps its compliance in compliance_days.
 */
export async function trendHorizon(database: Database, now = new Date()): Promise<Date> {
  const repository = new ComplianceRepository(database);
  const today = dayOf(now);
  const first = await repository.firstResultDay();
  const yesterday = addDays(today, -1);
  const oldest = addDays(yesterday, 1 - MAX_TREND_DAYS);
  const unrecorded = first && first <= yesterday ? await repository.unrecordedDays(first > oldest ? first : oldest, yesterday, MAX_TREND_DAYS) : [];
  return new Date(`${unrecorded.at(-1) ?? today}T00:00:00Z`);
}
