import type { ServiceContext } from '#lib/db/client';
import { NotFoundError } from '#lib/errors/domain-errors';
import type { Principal } from '#lib/http/endpoint';

import { fourEyesEnabled } from './caller-access';
import type { RoleBinding, RoleBindingInput } from './role-binding';
import { RoleBindingRepository, type RoleBindingRow } from './role-binding-repository';

const represent = (row: RoleBindingRow): RoleBinding => ({
  id: row.id,
  subjects: row.subjects,
  groups: row.groups,
  roles: row.roles as RoleBinding['roles'],
  resourceTypes: row.resourceTypes,
  environments: row.environments,
  source: 'api',
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
});

/** GET /me: the caller as the authorization sees it. */
export function describeCaller({ settings }: ServiceContext, principal: Principal) {
  return {
    subject: principal.subject,
    method: principal.method as 'service-account' | 'technical' | 'basic',
    groups: [...principal.groups],
    roles: principal.access.roles,
    permissions: principal.access.permissions,
    scopes: principal.access.grants.map((grant) => ({
      roles: [...grant.roles],
      resourceTypes: grant.resourceTypes ? [...grant.resourceTypes] : null,
      environments: grant.environments ? [...grant.environments] : null,
      source: grant.source,
    })),
    fourEyes: fourEyesEnabled(settings),
  };
}

export async function listRoleBindings({ database, settings }: ServiceContext): Promise<RoleBinding[]> {
  const configured: RoleBinding[] = settings.authorization.bindings.map((binding, index) => ({
    id: `application.conf#${index}`,
    subjects: binding.subjects,
    groups: binding.groups,
    roles: binding.roles,
    resourceTypes: binding.resourceTypes ?? null,
    environments: binding.environments ?? null,
    source: 'application.conf',
    createdBy: null,
    createdAt: null,
  }));
  const stored = await new RoleBindingRepository(database).list();
  return [...configured, ...stored.map(represent)];
}

export async function createRoleBinding({ database }: ServiceContext, input: RoleBindingInput, subject: string): Promise<RoleBinding> {
  return represent(await new RoleBindingRepository(database).create(input, subject));
}

export async function deleteRoleBinding({ database }: ServiceContext, id: string): Promise<void> {
  if (!(await new RoleBindingRepository(database).delete(id))) throw new NotFoundError(`No role binding of the database has the id ${id}`);
}
