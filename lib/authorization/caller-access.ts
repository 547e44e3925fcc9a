import type { JWTPayload } from 'jose';

import type { Authenticated } from '#lib/auth/authenticator';
import { runtimeEnvironment } from '#lib/settings/environment';
import type { Settings } from '#lib/settings/index';

import { Access, type Grant } from './access';
import type { RoleBindingRow } from './role-binding-repository';
import { isRole, type Role } from './roles';

/** A claim read as a list of names: a JSON array of strings, or one string of names separated by spaces or commas. */
function namesOf(claim: unknown): string[] | undefined {
  if (typeof claim === 'string') return claim.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(claim)) return claim.filter((item): item is string => typeof item === 'string' && item.length > 0);
  return undefined;
}

/** The claim at a name, also a dotted path into nested claims (`realm_access.roles`). */
function claimAt(claims: JWTPayload, name: string): unknown {
  if (name in claims) return claims[name];
  return name.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), claims);
}

/** The groups the caller's token names (`authorization.groups-claim`). */
const groupsOf = (who: Authenticated, settings: Settings): string[] => namesOf(claimAt(who.claims, settings.authorization.groupsClaim)) ?? [];

const rolesIn = (names: readonly string[]): Role[] => names.filter(isRole);

export interface Caller {
  readonly groups: string[];
  readonly access: Access;
}

/**
 * What an authenticated caller may do (docs/authorization.md): the roles of its token's roles
 * claim (a technical JWT without one: `authorization.technical-token-roles`), plus every binding of
 * application.conf and of the database that names its subject (what its verified token says; for Basic,
 * the exchanged token's) or one of its groups.
 */
export function callerOf(who: Authenticated, settings: Settings, stored: readonly RoleBindingRow[]): Caller {
  const { rolesClaim, technicalTokenRoles, bindings } = settings.authorization;
  const groups = groupsOf(who, settings);
  const claimed = namesOf(claimAt(who.claims, rolesClaim));
  const grants: Grant[] = [];
  if (claimed !== undefined) grants.push({ roles: rolesIn(claimed), source: 'token' });
  else if (who.method === 'technical') grants.push({ roles: technicalTokenRoles, source: 'technical-token-roles' });
  const names = (subjects: readonly string[], bound: readonly string[]) => subjects.includes(who.subject) || bound.some((group) => groups.includes(group));
  bindings.forEach((binding, index) => {
    if (!names(binding.subjects, binding.groups)) return;
    grants.push({ roles: binding.roles, resourceTypes: binding.resourceTypes, environments: binding.environments, source: `application.conf#${index}` });
  });
  for (const binding of stored) {
    if (!names(binding.subjects, binding.groups)) continue;
    grants.push({
      roles: rolesIn(binding.roles),
      resourceTypes: binding.resourceTypes ?? undefined,
      environments: binding.environments ?? undefined,
      source: `role-binding:${binding.id}`,
    });
  }
  return { groups, access: new Access(grants.filter((grant) => grant.roles.length > 0)) };
}

/** Whether the caller holds every permission everywhere (an admin not limited to any scope): bindings can add nothing. */
export const holdsEverything = (caller: Caller): boolean =>
  caller.access.grants.some((grant) => grant.roles.includes('admin') && !grant.resourceTypes && !grant.environments);

/** Whether four-eyes approval is on: `authorization.four-eyes.enabled`, else on when deployed and off locally. */
export const fourEyesEnabled = (settings: Settings): boolean => settings.authorization.fourEyes.enabled ?? runtimeEnvironment().deployed;
