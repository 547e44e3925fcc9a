import * as approvals from '#lib/governance/approvals/approval-service';
import { approveRequestEndpoint, getApprovalEndpoint, listApprovalsEndpoint, rejectRequestEndpoint } from '#lib/governance/approvals/endpoints';
import { governanceHandler } from '#lib/governance/governance-handler';

export const listApprovals = governanceHandler(listApprovalsEndpoint, async ({ query }, ctx) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await approvals.listApprovals(ctx, filters, { limit, offset }) };
});

export const getApproval = governanceHandler(getApprovalEndpoint, async ({ params }, ctx) => ({
  status: 200,
  body: await approvals.getApproval(ctx, params.id),
}));

export const approveRequest = governanceHandler(approveRequestEndpoint, async ({ params, body, principal, authorize }, ctx) => {
  for (const scope of await approvals.scopesOfApproval(ctx, params.id)) authorize(scope);
  return { status: 200, body: await approvals.approve(ctx, params.id, principal.subject, body.comment ?? null) };
});

export const rejectRequest = governanceHandler(rejectRequestEndpoint, async ({ params, body, principal, authorize }, ctx) => {
  for (const scope of await approvals.scopesOfApproval(ctx, params.id)) authorize(scope);
  return { status: 200, body: await approvals.reject(ctx, params.id, principal.subject, body.comment ?? null) };
});
