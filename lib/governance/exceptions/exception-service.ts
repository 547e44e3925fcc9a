import type { Scope } from '#lib/authorization/access';
import { inTransaction, type Transaction } from '#lib/db/transaction';
import { type FieldError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';
import { listBody, type Pagination } from '#lib/http/pagination';

import type { GovernanceContext } from '../context';
import { requireKnownEnvironment } from '../environments/environment-service';
import { resourceTypesOf } from '../policies/entity-reading';
import { EntityRepository, type EntityRow } from '../policies/entity-repository';
import type { ExceptionFilters, ExceptionInput, GovernanceException } from './exception';
import { ExceptionRepository, type ExceptionRow } from './exception-repository';
import { likePattern, waivesEveryResource } from './resource-glob';

const DAY_MS = 86_400_000;

function represent(row: ExceptionRow): GovernanceException {
  return {
    id: row.id,
    ...(row.entityKind === 'policy' ? { policyId: row.entityId } : { metricId: row.entityId }),
    resourceId: row.resourceId,
    environment: row.environment,
    reason: row.reason,
    ticket: row.ticket,
    expiresAt: row.expiresAt.toISOString(),
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    requestedBy: row.createdBy,
    approvedBy: row.approvedBy,
    active: row.active,
  };
}

/** `expiresAt` in the future and at most exceptions.max-duration after `now`. */
function expiryProblem(expiresAt: Date, now: Date, maxDurationMs: number): FieldError | undefined {
  if (expiresAt.getTime() <= now.getTime()) return { path: 'expiresAt', message: 'expiresAt must be in the future' };
  if (expiresAt.getTime() - now.getTime() > maxDurationMs) {
    const limit = maxDurationMs % DAY_MS === 0 ? `${maxDurationMs / DAY_MS} days` : `${maxDurationMs / 1000} seconds`;
    return {
      path: 'expiresAt',
      message: `expiresAt must be at most ${limit} ahead (exceptions.max-duration), before ${new Date(now.getTime() + maxDurationMs).toISOString()}`,
    };
  }
  return undefined;
}

const waivedEntity = (input: ExceptionInput) =>
  input.policyId
    ? { kind: 'policy' as const, entityId: input.policyId, field: 'policyId' }
    : { kind: 'metric' as const, entityId: input.metricId as string, field: 'metricId' };

/** The rules of a new exception (its entity exists, its expiry, its environment); throws InvalidInput. */
export async function checkNewException(
  ctx: GovernanceContext,
  input: ExceptionInput,
): Promise<{ kind: 'policy' | 'metric'; entityId: string; entity: EntityRow }> {
  const settings = ctx.settings;
  const { kind, entityId, field } = waivedEntity(input);
  const errors: FieldError[] = [];
  const entity = await new EntityRepository(ctx.database).find(kind, entityId);
  if (!entity) errors.push({ path: field, message: `no ${kind} has the id ${entityId}` });
  const expiry = expiryProblem(new Date(input.expiresAt), new Date(), settings.exceptions.maxDuration);
  if (expiry) errors.push(expiry);
  if (!entity || errors.length > 0) throw new InvalidInput(errors);
  if (input.environment !== undefined) await requireKnownEnvironment(ctx, input.environment, 'environment');
  return { kind, entityId, entity };
}

/**
 * Creates an exception asked for by `subject`. Under four-eyes the approval passes `approvedBy`
 * and `alongside`, which runs in the transaction that writes the exception (the approval's own row).
 */
export async function createException(
  ctx: GovernanceContext,
  input: ExceptionInput,
  subject: string,
  approval: { approvedBy: string; alongside: (tx: Transaction, exception: GovernanceException) => Promise<void> } | undefined = undefined,
): Promise<GovernanceException> {
  const database = ctx.database;
  const { kind, entityId } = await checkNewException(ctx, input);
  const expiresAt = new Date(input.expiresAt);
  const values = {
    entityId,
    entityKind: kind,
    resourceId: input.resourceId,
    resourceLike: likePattern(input.resourceId),
    environment: input.environment ?? null,
    reason: input.reason,
    ticket: input.ticket ?? null,
    expiresAt,
    createdBy: subject,
    approvedBy: approval?.approvedBy ?? null,
  };
  return inTransaction(database, 'create exception', async (tx) => {
    const exception = represent(await new ExceptionRepository(database).create(values, tx));
    await approval?.alongside(tx, exception);
    return exception;
  });
}

/**
 * How far a new exception reaches: the resources its pattern matches now (of those its policy has
 * results for), and whether it is broad, needing exceptions:waive-all: a pattern of wildcards alone,
 * or one matching more than `exceptions.max-matched-resources`.
 */
export async function reachOfNewException(ctx: GovernanceContext, input: ExceptionInput): Promise<{ matchedResources: number; broad: boolean }> {
  const { entityId } = waivedEntity(input);
  const matchedResources = await new ExceptionRepository(ctx.database).matchingResources(entityId, likePattern(input.resourceId), input.environment ?? null);
  return { matchedResources, broad: waivesEveryResource(input.resourceId) || matchedResources > ctx.settings.exceptions.maxMatchedResources };
}

/** What a new exception acts on: the resource types its entity is enforced on (and its newest version's), in its environment (absent: every one). */
export async function scopesOfNewException(ctx: GovernanceContext, input: ExceptionInput): Promise<Scope[]> {
  const { kind, entityId, field } = waivedEntity(input);
  const resourceTypes = await resourceTypesOf(ctx, kind, entityId);
  if (!resourceTypes) throw new InvalidInput([{ path: field, message: `no ${kind} has the id ${entityId}` }]);
  return resourceTypes.map((resourceType) => ({ resourceType, environment: input.environment ?? null }));
}

/** What an exception acts on: the resource types its entity is enforced on (or every one when the entity is gone), in its environment. */
export async function scopesOfException(ctx: GovernanceContext, id: string): Promise<Scope[]> {
  const row = await new ExceptionRepository(ctx.database).find(id);
  if (!row) throw new NotFoundError(`No exception has the id ${id}`);
  const resourceTypes = await resourceTypesOf(ctx, row.entityKind, row.entityId);
  return (resourceTypes ?? [null]).map((resourceType) => ({ resourceType, environment: row.environment }));
}

export async function getException(ctx: GovernanceContext, id: string): Promise<GovernanceException> {
  const row = await new ExceptionRepository(ctx.database).find(id);
  if (!row) throw new NotFoundError(`No exception has the id ${id}`);
  return represent(row);
}

export async function listExceptions(ctx: GovernanceContext, filters: ExceptionFilters, pagination: Pagination) {
  const { rows, total } = await new ExceptionRepository(ctx.database).list(filters, pagination);
  return listBody(rows.map(represent), pagination, total);
}

export async function deleteException(ctx: GovernanceContext, id: string): Promise<void> {
  if (!(await new ExceptionRepository(ctx.database).delete(id))) throw new NotFoundError(`No exception has the id ${id}`);
}
