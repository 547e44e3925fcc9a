import { z } from 'zod';

import { endpoint } from '#lib/http/endpoint';

import { SENT_FOR_APPROVAL } from './approval';
import { me, roleBinding, roleBindingId, roleBindingInput } from './role-binding';

const BASE = '/v1/computational-governance';
const MANAGE = { permission: 'role-bindings:manage', scope: 'everywhere' } as const;

export const getMeEndpoint = endpoint({
  operationId: 'getMe',
  access: 'authenticated',
  method: 'GET',
  path: `${BASE}/me`,
  summary: 'Who the caller is: subject, roles, the scopes they hold them in, and every permission',
  tags: ['access'],
  responses: { 200: { description: 'The caller', schema: me } },
});

export const listRoleBindingsEndpoint = endpoint({
  operationId: 'listRoleBindings',
  access: MANAGE,
  method: 'GET',
  path: `${BASE}/role-bindings`,
  summary: 'Every role binding: those of application.conf (read-only here), then those of the database, newest first',
  tags: ['access'],
  responses: { 200: { description: 'The bindings', schema: z.object({ data: z.array(roleBinding) }) } },
});

export const createRoleBindingEndpoint = endpoint({
  operationId: 'createRoleBinding',
  access: MANAGE,
  method: 'POST',
  path: `${BASE}/role-bindings`,
  summary: 'Give roles to subjects or groups, optionally within resource types and environments',
  tags: ['access'],
  body: roleBindingInput,
  responses: {
    201: { description: 'The binding, at the Location header', schema: roleBinding },
    202: SENT_FOR_APPROVAL,
  },
});

export const deleteRoleBindingEndpoint = endpoint({
  operationId: 'deleteRoleBinding',
  access: MANAGE,
  method: 'DELETE',
  path: `${BASE}/role-bindings/{id}`,
  summary: 'Take a binding of the database away (those of application.conf change with the file)',
  tags: ['access'],
  params: roleBindingId,
  responses: {
    204: { description: 'Deleted' },
    202: SENT_FOR_APPROVAL,
    404: { description: 'No binding of the database has this id' },
  },
});
