import { asc, inArray, sql, type SQLWrapper } from 'drizzle-orm';

import type { Database } from '#lib/db/client';

import cuePolicyGuide from '../../../docs/cue-policies.md';
import { guideSections, type KnowledgeSource, SOURCE_TYPES, type SourceType } from './knowledge-chunk';

/** How many of a policy's most frequent errors its results summary names. */
const TOP_ERRORS = 5;

/** A source of the index by its type and id: a policy's or a metric's versions share one. */
export interface SourceRef {
  readonly type: SourceType;
  readonly id: string;
}

/** A part of the index: every source of `types`, and `sources`. */
export interface IndexScope {
  readonly types: readonly SourceType[];
  readonly sources: readonly SourceRef[];
}

/** Sources read now, and the part of the index they are all of: a chunk stored there that they do not make is gone. */
export interface ReadSources {
  readonly scope: IndexScope;
  readonly sources: KnowledgeSource[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `column in (ids)`, one parameter per id, so that the planner knows how many (a refresh of the
 * stale sources reads at most a few per mark); a uuid column takes only the ids that are uuids.
 */
const oneOf = (column: SQLWrapper, ids: readonly string[], type: 'text' | 'uuid' = 'text') => {
  const valid = type === 'uuid' ? ids.filter((id) => UUID.test(id)) : [...ids];
  return valid.length > 0 ? inArray(column, valid) : sql`false`;
};

const lines = (...entries: [string, string | number | null | undefined][]) =>
  entries
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([label, value]) => `${label}: ${value}`)
    .join('\n');

async function entitySources(database: Database, ids?: readonly string[]): Promise<KnowledgeSource[]> {
  const t = database.tables.governanceEntities;
  const rows = await database.db
    .select()
    .from(t)
    .where(ids && oneOf(t.id, ids, 'uuid'))
    .orderBy(asc(t.id), asc(t.version));
  return rows.map((row) => ({
    type: row.kind,
    id: row.id,
    version: row.version,
    title: row.name,
    content: [
      lines(
        [row.kind === 'policy' ? 'Policy' : 'Metric', row.name],
        ['Id', row.id],
        ['Version', row.version],
        ['Status', row.status],
        ['Description', row.description],
        ['Tags', row.tags.join(', ')],
        ['Resource type', row.resourceType],
        ['Environment', row.environment ?? 'every environment'],
        ['Severity', row.severity],
        ['Engine', row.engine],
        ['Trigger', `${row.trigger}, at ${row.timing}${row.cronExpression ? `, cron ${row.cronExpression}` : ''}`],
      ),
      row.cueScript ? `CUE script:\n${row.cueScript}` : '',
      row.llmRule ? `LLM rule:\n${row.llmRule}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
  }));
}

async function resourceTypeSources(database: Database, names?: readonly string[]): Promise<KnowledgeSource[]> {
  const t = database.tables.resourceTypes;
  const rows = await database.db
    .select()
    .from(t)
    .where(names && oneOf(t.name, names))
    .orderBy(asc(t.name));
  return rows.map((row) => ({
    type: 'resource_type',
    id: row.name,
    title: row.displayName,
    content: lines(
      ['Resource type', row.name],
      ['Display name', row.displayName],
      ['Resource name field', row.resourceNameField],
      ['Display name fields', row.resourceDisplayNameFields.join(', ')],
      ['Filter field', row.resourceFilterField],
    ),
  }));
}

async function environmentSources(database: Database, names?: readonly string[]): Promise<KnowledgeSource[]> {
  const t = database.tables.environments;
  const rows = await database.db
    .select()
    .from(t)
    .where(names && oneOf(t.name, names))
    .orderBy(asc(t.name));
  return rows.map((row) => ({
    type: 'environment',
    id: row.name,
    title: `Environment ${row.name}`,
    content: lines(['Environment', row.name], ['Details', Object.keys(row.details).length > 0 ? JSON.stringify(row.details) : undefined]),
  }));
}

interface ResultSummaryRow extends Record<string, unknown> {
  entity_id: string;
  name: string;
  passed: number;
  waived: number;
  failed: number;
  errors: { error: string; count: number }[] | null;
}

/**
 * Per policy (every one, or those of `policyIds`), over the latest recorded result of each
 * (resource, environment): how many pass, pass under an exception (waived) and fail, and the most
 * frequent errors (waived ones included).
 */
async function resultSources(database: Database, policyIds?: readonly string[]): Promise<KnowledgeSource[]> {
  const results = database.tables.evaluationResults;
  const entities = database.tables.governanceEntities;
  // On both sides of the join: the planner then reads only those policies of each table.
  const ofPolicies = (column: SQLWrapper) => (policyIds ? sql`and ${oneOf(column, policyIds, 'uuid')}` : sql``);
  const rows = (await database.db.execute<ResultSummaryRow>(sql`
    with latest as (
      select distinct on (${results.entityId}, ${results.resourceId}, ${results.environment})
        ${results.entityId} as entity_id, ${results.outcome} as outcome, ${results.result} as result
      from ${results}
      where ${results.recorded} and ${results.entityKind} = 'policy' ${ofPolicies(results.entityId)}
      order by ${results.entityId}, ${results.resourceId}, ${results.environment}, ${results.id} desc
    ),
    errors as (
      select entity_id, error, count(*)::int as count, row_number() over (partition by entity_id order by count(*) desc, error) as rank
      from latest, jsonb_array_elements_text(case when jsonb_typeof(result -> 'errors') = 'array' then result -> 'errors' else '[]' end) as error
      where outcome <> 'ok'
      group by entity_id, error
    )
    select latest.entity_id, ${entities.name} as name,
      count(*) filter (where outcome = 'ok')::int as passed,
      count(*) filter (where outcome = 'waived')::int as waived,
      count(*) filter (where outcome not in ('ok', 'waived'))::int as failed,
      (select json_agg(json_build_object('error', e.error, 'count', e.count) order by e.rank) from errors e
        where e.entity_id = latest.entity_id and e.rank <= ${TOP_ERRORS}) as errors
    from latest join ${entities} on ${entities.id} = latest.entity_id and ${entities.latest} ${ofPolicies(entities.id)}
    group by latest.entity_id, ${entities.name}
    order by latest.entity_id`)) as unknown as ResultSummaryRow[];
  return rows.map((row) => ({
    type: 'results',
    id: row.entity_id,
    title: `Latest results of ${row.name}`,
    content: [
      `Latest results of the policy ${row.name} (${row.entity_id}): ${row.passed} resources pass, ` +
        `${row.waived > 0 ? `${row.waived} fail under an active exception (waived), ` : ''}${row.failed} fail.`,
      ...(row.errors ?? []).map((e) => `- ${e.count} x ${e.error}`),
    ].join('\n'),
  }));
}

const GUIDE_TITLE = 'Writing CUE policies';

/** Everything the index holds, read now: the sources of the platform's data and the CUE guide. */
export async function allSources(database: Database): Promise<ReadSources> {
  const [entities, resourceTypes, environments, results] = await Promise.all([
    entitySources(database),
    resourceTypeSources(database),
    environmentSources(database),
    resultSources(database),
  ]);
  return {
    scope: { types: SOURCE_TYPES, sources: [] },
    sources: [...entities, ...resourceTypes, ...environments, ...guideSections(cuePolicyGuide, GUIDE_TITLE), ...results],
  };
}

/** The policies with results recorded by these reports, report by report. */
async function policiesOfReports(database: Database, reportIds: readonly string[]): Promise<Map<string, string[]>> {
  if (reportIds.length === 0) return new Map();
  const t = database.tables.evaluationResults;
  const rows = await database.db
    .selectDistinct({ report: t.reportId, policy: t.entityId })
    .from(t)
    .where(sql`${oneOf(t.reportId, reportIds, 'uuid')} and ${t.recorded} and ${t.entityKind} = 'policy'`);
  const byReport = new Map<string, string[]>();
  for (const { report, policy } of rows) byReport.set(String(report), [...(byReport.get(String(report)) ?? []), policy]);
  return byReport;
}

/**
 * What a mark names (marks: lib/outbox/knowledge-changes.ts, and the start-up tasks for the guide,
 * the environments and the resource types of the settings):
 * - a policy or metric: every version of it (of either kind, kept in one part of the index) and the
 *   summary of its results (its name is the summary's title);
 * - results: the summary of the policy of that id (a passive result), or of each policy with
 *   results in the report of that id;
 * - a resource type, an environment: itself;
 * - the guide (any id): every section of it.
 */
async function scopesOf(database: Database, marks: readonly SourceRef[]): Promise<IndexScope[]> {
  const reports = await policiesOfReports(
    database,
    marks.filter((mark) => mark.type === 'results').map((mark) => mark.id),
  );
  return marks.map(({ type, id }): IndexScope => {
    switch (type) {
      case 'policy':
      case 'metric':
        return {
          types: [],
          sources: [
            { type: 'policy', id },
            { type: 'metric', id },
            { type: 'results', id },
          ],
        };
      case 'results':
        return { types: [], sources: [id, ...(reports.get(id) ?? [])].map((policy) => ({ type: 'results', id: policy })) };
      case 'guide':
        return { types: ['guide'], sources: [] };
      default:
        return { types: [], sources: [{ type, id }] };
    }
  });
}

/**
 * The sources that marks name, read now, and only those: each mark's part of the index
 * (`scopes`, in the order of the marks) and all of them together (`scope`).
 */
export async function markedSources(database: Database, marks: readonly SourceRef[]): Promise<ReadSources & { scopes: IndexScope[] }> {
  const scopes = await scopesOf(database, marks);
  const named = scopes.flatMap((scope) => scope.sources);
  const ids = (type: SourceType) => [...new Set(named.filter((source) => source.type === type).map((source) => source.id))];
  const guide = scopes.some((scope) => scope.types.includes('guide'));
  const [entities, resourceTypes, environments, results] = await Promise.all([
    ids('policy').length > 0 ? entitySources(database, ids('policy')) : [],
    ids('resource_type').length > 0 ? resourceTypeSources(database, ids('resource_type')) : [],
    ids('environment').length > 0 ? environmentSources(database, ids('environment')) : [],
    ids('results').length > 0 ? resultSources(database, ids('results')) : [],
  ]);
  const unique = new Map(named.map((source) => [`${source.type}:${source.id}`, source]));
  return {
    scope: { types: guide ? ['guide'] : [], sources: [...unique.values()] },
    scopes,
    sources: [...entities, ...resourceTypes, ...environments, ...(guide ? guideSections(cuePolicyGuide, GUIDE_TITLE) : []), ...results],
  };
}
