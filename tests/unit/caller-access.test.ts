import { describe, expect, it } from 'vitest';

import type { Authenticated } from '#lib/auth/authenticator';
import { callerOf } from '#lib/authorization/caller-access';
import type { RoleBindingRow } from '#lib/authorization/role-binding-repository';

import { settingsWith } from '../support/settings-files';

const settings = settingsWith(`computational-governance-platform.authorization {
  roles-claim = "realm_access.roles"
  bindings = [
    { subjects = ["ana"], roles = [author], resource-types = ["dataproduct"], environments = ["production"] }
    { groups = ["board"], roles = [approver] }
    { subjects = ["alice"], roles = [auditor] }
  ]
}`);

const who = (method: Authenticated['method'], claims: Record<string, unknown>, subject = 'someone'): Authenticated => ({ subject, method, claims });

const stored = (changes: Partial<RoleBindingRow>): RoleBindingRow => ({
  id: '00000000-0000-4000-8000-000000000001',
  subjects: [],
  groups: [],
  roles: ['reader'],
  resourceTypes: null,
  environments: null,
  createdBy: 'root',
  createdAt: new Date(0),
  ...changes,
});

describe("a caller's grants", () => {
  it('reads the roles claim at a dotted path, as an array or as names separated by spaces or commas; unknown roles are ignored', async () => {
    const s = await settings;
    expect(callerOf(who('service-account', { realm_access: { roles: ['evaluator', 'owner'] } }), s, []).access.roles).toEqual(['evaluator']);
    expect(callerOf(who('service-account', { realm_access: { roles: 'reader, approver auditor' } }), s, []).access.roles).toEqual([
      'reader',
      'approver',
      'auditor',
    ]);
    expect(callerOf(who('service-account', {}), s, []).access.grants).toEqual([]);
  });

  it('a technical JWT without a roles claim gets technical-token-roles; with one, those', async () => {
    const s = await settings;
    expect(callerOf(who('technical', {}), s, []).access.grants).toEqual([{ roles: ['reader', 'evaluator'], source: 'technical-token-roles' }]);
    expect(callerOf(who('technical', { realm_access: { roles: [] } }), s, []).access.grants).toEqual([]);
  });

  it('adds the bindings of application.conf and of the database naming the subject or a group', async () => {
    const s = await settings;
    const ana = callerOf(who('technical', { realm_access: { roles: [] }, groups: ['board'] }, 'ana'), s, [
      stored({ groups: ['board'], roles: ['evaluator'], environments: ['qa'] }),
      stored({ subjects: ['bob'], roles: ['admin'] }),
    ]);
    expect(ana.groups).toEqual(['board']);
    expect(ana.access.grants.map((grant) => grant.source)).toEqual([
      'application.conf#0',
      'application.conf#1',
      'role-binding:00000000-0000-4000-8000-000000000001',
    ]);
    expect(ana.access.can('policies:edit', 'resource', { resourceType: 'dataproduct', environment: 'production' })).toBe(true);
    expect(ana.access.can('policies:edit', 'resource', { resourceType: 'dataproduct', environment: null })).toBe(false);
    expect(ana.access.can('policies:edit', 'resource', { resourceType: 'pipeline', environment: 'production' })).toBe(false);
    expect(ana.access.can('approvals:decide', 'everywhere')).toBe(true);
    expect(ana.access.can('evaluations:run', 'resource', { resourceType: 'pipeline', environment: 'qa' })).toBe(true);
    expect(ana.access.can('evaluations:run', 'everywhere')).toBe(false);
    expect(ana.access.can('audit:read', 'anywhere')).toBe(false);
    // Basic: only the exchanged JWT's subject counts (the user name beside the access token is refused unless it is that subject).
    expect(callerOf(who('basic', {}, 'alice'), s, []).access.roles).toEqual(['auditor']);
    expect(callerOf(who('basic', {}, 'user-7f3a'), s, []).access.roles).toEqual([]);
  });

  it('a refusal names the permission and the scope it lacked', async () => {
    const access = callerOf(who('technical', { realm_access: { roles: [] } }, 'ana'), await settings, []).access;
    expect(() => access.require('policies:publish', 'resource', { resourceType: 'pipeline', environment: 'qa' })).toThrow(
      expect.objectContaining({
        message: 'This needs the permission policies:publish for resource type pipeline, environment qa',
        members: { permission: 'policies:publish', scope: { resourceType: 'pipeline', environment: 'qa' } },
      }),
    );
  });
});
