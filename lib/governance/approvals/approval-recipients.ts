import type { Scope } from '#lib/authorization/access';
import { RoleBindingRepository } from '#lib/authorization/role-binding-repository';
import { type Role, ROLE_PERMISSIONS } from '#lib/authorization/roles';
import type { Database } from '#lib/db/client';
import type { Settings } from '#lib/settings/index';

const DECIDERS = (Object.keys(ROLE_PERMISSIONS) as Role[]).filter((role) => ROLE_PERMISSIONS[role].includes('approvals:decide'));

interface Binding {
  readonly subjects: readonly string[];
  readonly groups: readonly string[];
  readonly roles: readonly string[];
  readonly resourceTypes?: readonly string[] | null;
  readonly environments?: readonly string[] | null;
}

const covers = (limit: readonly string[] | null | undefined, value: string | null) => !limit || (value !== null && limit.includes(value));

/**
 * Whom to tell of a new request: the subjects and groups of every binding (application.conf and the
 * database) that gives a role able to decide it within its scope, the requester left out. Roles
 * that come only from tokens are not known ahead: those approvers see the Approvals page.
 */
export async function approversOf(database: Database, settings: Settings, scope: Scope, requester: string): Promise<{ subjects: string[]; groups: string[] }> {
  const bindings: Binding[] = [...settings.authorization.bindings, ...(await new RoleBindingRepository(database).holdersOf(DECIDERS))];
  const inScope = bindings.filter(
    (binding) =>
      binding.roles.some((role) => (DECIDERS as string[]).includes(role)) &&
      covers(binding.resourceTypes, scope.resourceType ?? null) &&
      covers(binding.environments, scope.environment ?? null),
  );
  const subjects = new Set(inScope.flatMap((binding) => binding.subjects));
  subjects.delete(requester);
  return { subjects: [...subjects].sort(), groups: [...new Set(inScope.flatMap((binding) => binding.groups))].sort() };
}
