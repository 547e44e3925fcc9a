import type { Transaction } from '#lib/db/transaction';
import { ConflictError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';
import type { Pagination } from '#lib/http/pagination';
import { listBody } from '#lib/http/pagination';
import { announceKnowledgeChange } from '#lib/outbox/knowledge-changes';
import { callableUrlProblem } from '#lib/platform/http-client';

import type { GovernanceContext } from '../context';
import { EntityRepository } from '../policies/entity-repository';
import { fromInput, type ResourceTypeInput } from './resource-type';
import { represent, ResourceTypeRepository } from './resource-type-repository';

const notFound = (name: string) => new NotFoundError(`No resource type is named "${name}"`);

/** 400 when the type's resolver may not be called (the address policy). */
export function checkResourceType(ctx: GovernanceContext, input: ResourceTypeInput): void {
  const problem = callableUrlProblem(ctx.settings, input.resolverConfiguration.url);
  if (problem) throw new InvalidInput([{ path: 'resolverConfiguration.url', message: `url ${problem}` }]);
}

/** Registers or replaces a type; in `tx` when given (an approval applying it). */
export async function registerResourceType(ctx: GovernanceContext, input: ResourceTypeInput, subject: string, tx?: Transaction) {
  checkResourceType(ctx, input);
  const { row, outcome } = await new ResourceTypeRepository(ctx.database).upsert(fromInput(input), 'api', subject, tx);
  if (outcome !== 'unchanged') await announceKnowledgeChange(ctx, { type: 'resource_type', id: row.name });
  return { resourceType: represent(row), created: outcome === 'created' };
}

export async function listResourceTypes(ctx: GovernanceContext, pagination: Pagination) {
  const { rows, total } = await new ResourceTypeRepository(ctx.database).list(pagination);
  return listBody(rows.map(represent), pagination, total);
}

export async function getResourceType(ctx: GovernanceContext, name: string) {
  const row = await new ResourceTypeRepository(ctx.database).find(name);
  if (!row) throw notFound(name);
  return represent(row);
}

/** Removes a type no policy or metric is written for (409 naming some of them otherwise); in `tx` when given. */
export async function deleteResourceType(ctx: GovernanceContext, name: string, tx?: Transaction): Promise<void> {
  const users = await new EntityRepository(ctx.database).namesUsingType(name);
  if (users.length > 0) {
    throw new ConflictError(
      `The resource type "${name}" is used by policies or metrics (${users.map((user) => JSON.stringify(user)).join(', ')}); delete them first`,
      { usedBy: users },
    );
  }
  if (!(await new ResourceTypeRepository(ctx.database).delete(name, tx))) throw notFound(name);
  await announceKnowledgeChange(ctx, { type: 'resource_type', id: name });
}
