import { getDatabase } from '#lib/db/client';
import { ConflictError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';
import type { Pagination } from '#lib/http/pagination';
import { listBody } from '#lib/http/pagination';
import { announceKnowledgeChange } from '#lib/outbox/knowledge-changes';
import { callableUrlProblem } from '#lib/platform/http-client';
import { getSettings } from '#lib/settings/index';

import { EntityRepository } from '../policies/entity-repository';
import { fromInput, type ResourceTypeInput } from './resource-type';
import { represent, ResourceTypeRepository } from './resource-type-repository';

const repository = async () => new ResourceTypeRepository(await getDatabase());

const notFound = (name: string) => new NotFoundError(`No resource type is named "${name}"`);

export async function registerResourceType(input: ResourceTypeInput, subject: string) {
  const problem = callableUrlProblem(await getSettings(), input.resolverConfiguration.url);
  if (problem) throw new InvalidInput([{ path: 'resolverConfiguration.url', message: `url ${problem}` }]);
  const { row, outcome } = await (await repository()).upsert(fromInput(input), 'api', subject);
  if (outcome !== 'unchanged') await announceKnowledgeChange({ type: 'resource_type', id: row.name });
  return { resourceType: represent(row), created: outcome === 'created' };
}

export async function listResourceTypes(pagination: Pagination) {
  const { rows, total } = await (await repository()).list(pagination);
  return listBody(rows.map(represent), pagination, total);
}

export async function getResourceType(name: string) {
  const row = await (await repository()).find(name);
  if (!row) throw notFound(name);
  return represent(row);
}

/** Removes a type no policy or metric is written for (409 naming some of them otherwise). */
export async function deleteResourceType(name: string): Promise<void> {
  const users = await new EntityRepository(await getDatabase()).namesUsingType(name);
  if (users.length > 0) {
    throw new ConflictError(
      `The resource type "${name}" is used by policies or metrics (${users.map((user) => JSON.stringify(user)).join(', ')}); delete them first`,
      { usedBy: users },
    );
  }
  if (!(await (await repository()).delete(name))) throw notFound(name);
  await announceKnowledgeChange({ type: 'resource_type', id: name });
}
