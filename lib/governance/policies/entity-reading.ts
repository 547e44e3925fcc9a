import type { Scope } from '#lib/authorization/access';
import { NotFoundError } from '#lib/errors/domain-errors';
import { listBody, type Pagination } from '#lib/http/pagination';

import type { GovernanceContext } from '../context';
import type { EntityFilters, EntityKind, EntityRepresentation } from './entity';
import { EntityRepository, type EntityRow } from './entity-repository';
import { ACTIVE_STATUSES, type EntityStatus } from './lifecycle';

// Reading policies and metrics: what every area above the policies needs of them (evaluation,
// impact, rollouts, approvals, the assistant), apart from the writes of entity-service.ts.

export const NOUN: Record<EntityKind, string> = { policy: 'policy', metric: 'metric' };

export function represent(row: EntityRow): EntityRepresentation {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    description: row.description,
    resourceType: row.resourceType,
    environment: row.environment,
    severity: row.severity,
    interactionType: row.interactionType,
    tags: row.tags,
    engine: row.engine,
    cueScript: row.cueScript,
    requireConcrete: row.requireConcrete,
    remoteEngineUrl: row.remoteEngineUrl,
    llmRule: row.llmRule,
    governanceAgentSpec: row.llmRule === null ? null : { prompt: row.llmRule },
    trigger: row.trigger,
    timing: row.timing,
    cronExpression: row.cronExpression,
    strategy: row.strategy,
    status: row.status,
    evaluator: row.evaluator,
    evaluatorReason: row.evaluatorReason,
    ...(row.kind === 'metric' ? { thresholds: row.thresholds ?? [] } : {}),
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    updatedAt: row.updatedAt.toISOString(),
    updatedBy: row.updatedBy,
  };
}

export const notFound = (kind: EntityKind, id: string, version?: number) =>
  new NotFoundError(`No ${NOUN[kind]} has the id ${id}${version === undefined ? '' : ` and version ${version}`}`);

/** What reading needs: the database. */
type Reading = Pick<GovernanceContext, 'database'>;

export async function listEntities(ctx: Reading, kind: EntityKind, filters: EntityFilters, pagination: Pagination) {
  const { rows, total } = await new EntityRepository(ctx.database).list(kind, filters, pagination);
  return listBody(rows.map(represent), pagination, total);
}

export async function readEntityRow(ctx: Reading, kind: EntityKind, id: string, version?: number): Promise<EntityRow> {
  const row = await new EntityRepository(ctx.database).find(kind, id, version);
  if (!row) throw notFound(kind, id, version);
  return row;
}

export async function getEntity(ctx: Reading, kind: EntityKind, id: string, version?: number): Promise<EntityRepresentation> {
  return represent(await readEntityRow(ctx, kind, id, version));
}

export async function listVersionsOfEntity(ctx: Reading, kind: EntityKind, id: string): Promise<EntityRepresentation[]> {
  const rows = await new EntityRepository(ctx.database).versions(kind, id);
  if (rows.length === 0) throw notFound(kind, id);
  return rows.map(represent);
}

/** Where a version acts: its resource type, in its environment (null: every one). */
export const scopeOf = (entity: { resourceType: string; environment: string | null }): Scope => ({
  resourceType: entity.resourceType,
  environment: entity.environment,
});

/** Each scope once. */
const distinct = (scopes: readonly Scope[]): Scope[] => [...new Map(scopes.map((scope) => [JSON.stringify(scope), scope])).values()];

/**
 * Every scope a move of a version (the newest unless `version` is given) to `to` changes: the
 * version's own and, when it goes into force, those of the versions it takes out of force (a version
 * enabled disables every other active one, whatever its environment or resource type). Permission
 * is needed over each (docs/authorization.md).
 */
export async function scopesOfMove(ctx: Reading, kind: EntityKind, id: string, to: EntityStatus, version?: number): Promise<Scope[]> {
  const versions = await new EntityRepository(ctx.database).versions(kind, id);
  const moved = version === undefined ? versions.at(-1) : versions.find((row) => row.version === version);
  if (!moved) throw notFound(kind, id, version);
  const outOfForce = ACTIVE_STATUSES.includes(to) ? versions.filter((row) => row.version !== moved.version && ACTIVE_STATUSES.includes(row.status)) : [];
  return distinct([moved, ...outOfForce].map(scopeOf));
}

/**
 * The resource types an entity acts on: those of its versions in force (enabled or in grace), and of
 * its newest version, which a publish would put in force. An exception to it waives what is enforced.
 */
export async function resourceTypesOf(ctx: Reading, kind: EntityKind, id: string): Promise<string[] | undefined> {
  const versions = await new EntityRepository(ctx.database).versions(kind, id);
  if (versions.length === 0) return undefined;
  const acting = [...versions.filter((row) => ACTIVE_STATUSES.includes(row.status)), versions[versions.length - 1]];
  return [...new Set(acting.map((row) => row.resourceType))];
}
