import { asc, sql } from 'drizzle-orm';

import type { Database } from '#lib/db/client';

import cuePolicyGuide from '../../../docs/cue-policies.md';
import { guideSections, type KnowledgeSource } from './knowledge-chunk';

/** How many of a policy's most frequent errors its results summary names. */
const TOP_ERRORS = 5;

const lines = (...entries: [string, string | number | null | undefined][]) =>
  entries
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([label, value]) => `${label}: ${value}`)
    .join('\n');

async function entitySources(database: Database): Promise<KnowledgeSource[]> {
  const t = database.tables.governanceEntities;
  const rows = await database.db.select().from(t).orderBy(asc(t.id), asc(t.version));
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

async function resourceTypeSources(database: Database): Promise<KnowledgeSource[]> {
  const t = database.tables.resourceTypes;
  const rows = await database.db.select().from(t).orderBy(asc(t.name));
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

async function environmentSources(database: Database): Promise<KnowledgeSource[]> {
  const t = database.tables.environments;
  const rows = await database.db.select().from(t).orderBy(asc(t.name));
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
 * Per policy, over the latest recorded result of each (resource, environment): how many pass, pass
 * under an exception (waived) and fail, and the most frequent errors (waived ones included).
 */
async function resultSources(database: Database): Promise<KnowledgeSource[]> {
  const results = database.tables.evaluationResults;
  const entities = database.tables.governanceEntities;
  const rows = (await database.db.execute<ResultSummaryRow>(sql`
    with latest as (
      select distinct on (${results.entityId}, ${results.resourceId}, ${results.environment})
        ${results.entityId} as entity_id, ${results.outcome} as outcome, ${results.result} as result
      from ${results}
      where ${results.recorded} and ${results.entityKind} = 'policy'
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
    from latest join ${entities} on ${entities.id} = latest.entity_id and ${entities.latest}
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

/** Everything the index holds, read now: the sources of the platform's data and the CUE guide. */
export async function knowledgeSources(database: Database): Promise<KnowledgeSource[]> {
  const [entities, resourceTypes, environments, results] = await Promise.all([
    entitySources(database),
    resourceTypeSources(database),
    environmentSources(database),
    resultSources(database),
  ]);
  return [...entities, ...resourceTypes, ...environments, ...guideSections(cuePolicyGuide, 'Writing CUE policies'), ...results];
}
