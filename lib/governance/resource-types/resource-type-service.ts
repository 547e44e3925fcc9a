import { getDatabase } from '../../db/client';
import type { Pagination } from '../../http/pagination';
import { listBody } from '../../http/pagination';
import { NotFound } from '../../http/problems';
import { fromInput, type ResourceTypeInput } from './resource-type';
import { represent, ResourceTypeRepository } from './resource-type-repository';

const repository = async () => new ResourceTypeRepository(await getDatabase());

const notFound = (name: string) => new NotFound(`No resource type is named "${name}"`);

export async function registerResourceType(input: ResourceTypeInput, subject: string) {
  const { row, outcome } = await (await repository()).upsert(fromInput(input), 'api', subject);
  return { resourceType: represent(row), created: outcome === 'created' };
}

export async function listResourceTypes(pagination: Pagination) {
  const { rows, total } = await (await repository()).list(pagination);
  return listBody(rows.map(represent), pagination, total);
}

export async function readResourceType(name: string) {
  const row = await (await repository()).find(name);
  if (!row) throw notFound(name);
  return represent(row);
}

export async function deleteResourceType(name: string): Promise<void> {
  if (!(await (await repository()).delete(name))) throw notFound(name);
}
