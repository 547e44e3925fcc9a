import type { Access } from './access';
import { ROLE_PERMISSIONS } from './roles';

/** Who calls, as far as speaking for a resource goes: how its token was verified, and what it may do. */
export interface Speaker {
  readonly method: string;
  readonly access: Access;
}

/**
 * Whether a caller may speak for the resources of a type in an environment (docs/authorization.md,
 * "Who may speak for a resource"): store an Evaluate's results as the resource's state, and record
 * passive results. Anyone who may evaluate may ask; only these are believed:
 *
 * - the platform's own service accounts (a service-account JWT, verified with the platform's key set);
 * - a grant of `evaluations:run` limited to a resource type or an environment that covers the
 *   resource: a binding someone made for the team that owns those resources (their CI);
 * - an admin limited to nothing.
 *
 * Not an evaluator limited to nothing (a technical JWT's default roles, a roles claim): any CI token
 * could otherwise make another team's resource look compliant. Its Evaluate is a dry run.
 */
export function speaksFor(caller: Speaker, scope: { readonly resourceType: string; readonly environment: string }): boolean {
  if (caller.method === 'service-account') return true;
  return caller.access.grants.some((grant) => {
    const unlimited = !grant.resourceTypes && !grant.environments;
    if (unlimited) return grant.roles.includes('admin');
    const covers = (grant.resourceTypes?.includes(scope.resourceType) ?? true) && (grant.environments?.includes(scope.environment) ?? true);
    return covers && grant.roles.some((role) => ROLE_PERMISSIONS[role].includes('evaluations:run'));
  });
}
