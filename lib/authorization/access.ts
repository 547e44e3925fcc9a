import { ForbiddenError } from '#lib/errors/domain-errors';

import { type Permission, type Role, ROLE_PERMISSIONS } from './roles';

/** Roles held by a caller, within resource types and environments when those are listed. */
export interface Grant {
  readonly roles: readonly Role[];
  /** Absent: every resource type. */
  readonly resourceTypes?: readonly string[];
  /** Absent: every environment. */
  readonly environments?: readonly string[];
  /** Where the grant comes from: `token`, `technical-token-roles`, `application.conf`, or a binding id. */
  readonly source: string;
}

/**
 * What an operation acts on. `null` (or absent) environment means every environment, so only a
 * grant without an environment limit covers it; likewise for the resource type.
 */
export interface Scope {
  readonly resourceType?: string | null;
  readonly environment?: string | null;
}

/** Where an endpoint's permission must be held (its contract says which). */
export type ScopeRule =
  /** In at least one grant, whatever it is limited to (reads). */
  | 'anywhere'
  /** In a grant limited to nothing (settings of the whole service: models, bindings, the audit trail). */
  | 'everywhere'
  /** In a grant covering the resource type and environment the handler names (request.authorize). */
  | 'resource';

const covers = (limit: readonly string[] | undefined, value: string | null | undefined) =>
  limit === undefined || (value !== null && value !== undefined && limit.includes(value));

const describe = (scope: Scope) => `resource type ${scope.resourceType ?? '(every one)'}, environment ${scope.environment ?? '(every one)'}`;

/** What one authenticated caller may do: the union of its grants. */
export class Access {
  constructor(readonly grants: readonly Grant[]) {}

  private grantsWith(permission: Permission) {
    return this.grants.filter((grant) => grant.roles.some((role) => ROLE_PERMISSIONS[role].includes(permission)));
  }

  /** Whether the permission is held where the rule (and, for `resource`, the scope) asks. */
  can(permission: Permission, rule: ScopeRule, scope: Scope = {}): boolean {
    const grants = this.grantsWith(permission);
    if (rule === 'anywhere') return grants.length > 0;
    if (rule === 'everywhere') return grants.some((grant) => !grant.resourceTypes && !grant.environments);
    return grants.some((grant) => covers(grant.resourceTypes, scope.resourceType) && covers(grant.environments, scope.environment));
  }

  /** Throws ForbiddenError (403) naming the permission and the scope it lacks. */
  require(permission: Permission, rule: ScopeRule, scope: Scope = {}): void {
    if (this.can(permission, rule, scope)) return;
    const where =
      rule === 'anywhere' ? 'anywhere' : rule === 'everywhere' ? 'everywhere (a grant limited to no resource type or environment)' : describe(scope);
    throw new ForbiddenError(`This needs the permission ${permission} ${rule === 'resource' ? 'for ' : ''}${where}`, {
      permission,
      scope: rule === 'resource' ? { resourceType: scope.resourceType ?? null, environment: scope.environment ?? null } : rule,
    });
  }

  get roles(): Role[] {
    return [...new Set(this.grants.flatMap((grant) => grant.roles))];
  }

  /** Every permission held somewhere. */
  get permissions(): Permission[] {
    return [...new Set(this.roles.flatMap((role) => ROLE_PERMISSIONS[role]))];
  }
}
