import type { createRoleBindingEndpoint, deleteRoleBindingEndpoint, getMeEndpoint, listRoleBindingsEndpoint } from '#lib/authorization/endpoints';
import type { RoleBindingInput } from '#lib/authorization/role-binding';
import type { Endpoint } from '#lib/http/endpoint';

import type { Credentials } from '../auth/session';
import { ApiProblem, call } from './client';
import type { Answer } from './contracts';
import { routes } from './routes';

/** The caller as the API's authorization sees it: subject, roles, every permission held somewhere, the scopes, four-eyes. */
export type Me = Answer<typeof getMeEndpoint>;
export type RoleBinding = Answer<typeof listRoleBindingsEndpoint>['data'][number];

/**
 * The permission an endpoint's contract asks for (its `access`, the OpenAPI document's
 * `x-permission`): the console's checks name it through this type, so a contract that changes its
 * permission fails the console's type check instead of offering a button the API refuses.
 */
export type PermissionOf<E extends Endpoint> = E['access'] extends { readonly permission: infer P } ? P : never;

/** What the role bindings' endpoints need (held everywhere: a grant limited to nothing). */
export const MANAGE_BINDINGS = 'role-bindings:manage' satisfies PermissionOf<typeof listRoleBindingsEndpoint> &
  PermissionOf<typeof createRoleBindingEndpoint> &
  PermissionOf<typeof deleteRoleBindingEndpoint>;

/** GET /me, once after sign-in (auth/access.tsx). */
export const readMe = (signal?: AbortSignal): Promise<Me> => call(routes.getMe, { signal });

/**
 * Whether the API takes these credentials (who they are: GET /me, which needs no permission):
 * signing in checks them before keeping them; what they may do is the console's next question.
 */
export const checkCredentials = async (credentials: Credentials) => {
  await call(routes.getMe, { credentials });
};

/** Whether the API takes Basic credentials (user + access token): its 401 to a call without credentials says so. */
export async function basicAccepted(): Promise<boolean> {
  try {
    await call(routes.getMe, { credentials: 'none' });
    return false;
  } catch (error) {
    return error instanceof ApiProblem && /\bbasic\b/i.test(error.challenge);
  }
}

export const listRoleBindings = async (signal?: AbortSignal) => (await call(routes.listRoleBindings, { signal })).data;

/** The binding made (201), or under four-eyes the request for it (202). */
export const createRoleBinding = (input: Partial<RoleBindingInput>): Promise<Answer<typeof createRoleBindingEndpoint, 201 | 202>> =>
  call(routes.createRoleBinding, { body: input as RoleBindingInput });

/** Only bindings of the API (source `api`): those of application.conf change with the file. Under four-eyes, the request for it (202). */
export const deleteRoleBinding = (id: string) => call(routes.deleteRoleBinding, { params: { id } });
