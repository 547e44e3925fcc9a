import * as access from '#lib/authorization/access-service';
import { createRoleBindingEndpoint, deleteRoleBindingEndpoint, getMeEndpoint, listRoleBindingsEndpoint } from '#lib/authorization/endpoints';
import { serviceFrame } from '#lib/http/composition';
import { httpHandler } from '#lib/http/handler';

export const getMe = httpHandler(getMeEndpoint, async ({ principal }) => ({ status: 200, body: await access.describeCaller(await serviceFrame(), principal) }));

export const listRoleBindings = httpHandler(listRoleBindingsEndpoint, async () => ({
  status: 200,
  body: { data: await access.listRoleBindings(await serviceFrame()) },
}));

export const createRoleBinding = httpHandler(createRoleBindingEndpoint, async ({ body, principal }) => {
  const binding = await access.createRoleBinding(await serviceFrame(), body, principal.subject);
  return { status: 201, body: binding, headers: { location: `/v1/computational-governance/role-bindings/${binding.id}` } };
});

export const deleteRoleBinding = httpHandler(deleteRoleBindingEndpoint, async ({ params }) => {
  await access.deleteRoleBinding(await serviceFrame(), params.id);
  return { status: 204 };
});
