import { z } from 'zod';

import { textField } from '#lib/http/text-field';

import { ROLES } from './roles';

const names = (field: string, what: string) => z.array(textField(what, 256)).max(200, `at most 200 ${field}`);

/** Body of POST /v1/computational-governance/role-bindings. */
export const roleBindingInput = z
  .strictObject({
    subjects: names('subjects', 'subject').default([]).meta({ description: 'Subjects (the token `sub`, or the Basic user) given the roles' }),
    groups: names('groups', 'group').default([]).meta({ description: "Groups (the token's groups claim) given the roles" }),
    roles: z
      .array(z.enum(ROLES, { error: `role must be one of ${ROLES.join(', ')}` }))
      .min(1, 'give at least one role')
      .max(ROLES.length, `at most ${ROLES.length} roles`),
    resourceTypes: names('resourceTypes', 'resourceType')
      .min(1, 'resourceTypes must name at least one resource type (leave it out for every one)')
      .optional()
      .meta({ description: 'Absent: every resource type' }),
    environments: names('environments', 'environment')
      .min(1, 'environments must name at least one environment (leave it out for every one)')
      .optional()
      .meta({ description: 'Absent: every environment' }),
  })
  .superRefine((binding, context) => {
    if (binding.subjects.length + binding.groups.length === 0)
      context.addIssue({ code: 'custom', path: ['subjects'], message: 'give at least one subject or group' });
  })
  .meta({ id: 'RoleBindingInput' });

export type RoleBindingInput = z.output<typeof roleBindingInput>;

export const roleBinding = z
  .object({
    id: z.string().meta({ description: 'Bindings of application.conf have the id `application.conf#<index>` and cannot be deleted here' }),
    subjects: z.array(z.string()),
    groups: z.array(z.string()),
    roles: z.array(z.enum(ROLES)),
    resourceTypes: z.array(z.string()).nullable(),
    environments: z.array(z.string()).nullable(),
    source: z.enum(['application.conf', 'api']),
    createdBy: z.string().nullable(),
    createdAt: z.string().nullable(),
  })
  .meta({ id: 'RoleBinding' });

export type RoleBinding = z.output<typeof roleBinding>;

export const roleBindingId = z.object({ id: z.uuid({ error: 'id must be a UUID' }) });

export const me = z
  .object({
    subject: z.string(),
    method: z.enum(['service-account', 'technical', 'basic']),
    groups: z.array(z.string()),
    roles: z.array(z.enum(ROLES)),
    permissions: z.array(z.string()).meta({ description: 'Every permission held somewhere' }),
    scopes: z
      .array(
        z.object({
          roles: z.array(z.enum(ROLES)),
          resourceTypes: z.array(z.string()).nullable().meta({ description: 'Null: every resource type' }),
          environments: z.array(z.string()).nullable().meta({ description: 'Null: every environment' }),
          source: z.string().meta({ description: 'token, technical-token-roles, application.conf#<n> or role-binding:<id>' }),
        }),
      )
      .meta({ description: 'Each grant: roles within resource types and environments' }),
    fourEyes: z.boolean().meta({ description: 'Whether publishing, status moves and new exceptions need the approval of another person' }),
  })
  .meta({ id: 'Me' });
