import * as access from '#lib/authorization/access-service';
import { createRoleBindingEndpoint, deleteRoleBindingEndpoint, getMeEndpoint, listRoleBindingsEndpoint } from '#lib/authorization/endpoints';
import { fourEyesOn, requestedAnswer } from '#lib/governance/approvals/approval-service';
import { requestRoleBindingChange } from '#lib/governance/approvals/settings-requests';
import { governanceHandler } from '#lib/governance/governance-handler';
import { serviceFrame } from '#lib/http/composition';
import { httpHandler } from '#lib/http/handler';

export const getMe = httpHandler(getMeEndpoint, async ({ principal }) => ({ status: 200, body: await access.describeCaller(await serviceFrame(), principal) }));

export const listRoleBindings = httpHandler(listRoleBindingsEndpoint, async () => ({
  status: 200,
  body: { data: await access.listRoleBindings(await serviceFrame()) },
}));

// Under four-eyes a change of who holds which role is a request that someone else decides (docs/authorization.md).
export const createRoleBinding = governanceHandler(createRoleBindingEndpoint, async ({ body, principal }, ctx) => {
  if (fourEyesOn(ctx)) return requestedAnswer(await requestRoleBindingChange(ctx, { action: 'create', binding: body }, principal.subject));
  const binding = await access.createRoleBinding(ctx, body, principal.subject);
  return { status: 201, body: binding, headers: { location: `/v1/computational-governance/role-bindings/${binding.id}` } };
});

export const deleteRoleBinding = governanceHandler(deleteRoleBindingEndpoint, async ({ params, principal }, ctx) => {
  if (fourEyesOn(ctx)) return requestedAnswer(await requestRoleBindingChange(ctx, { action: 'delete', id: params.id }, principal.subject));
  await access.deleteRoleBinding(ctx, params.id);
  return { status: 204 };
});
