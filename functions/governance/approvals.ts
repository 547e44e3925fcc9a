import * as approvals from '#lib/governance/approvals/approval-service';
import { approveRequestEndpoint, getApprovalEndpoint, listApprovalsEndpoint, rejectRequestEndpoint } from '#lib/governance/approvals/endpoints';
import { httpHandler } from '#lib/http/handler';

export const listApprovals = httpHandler(listApprovalsEndpoint, async ({ query }) => {
  const { limit, offset, ...filters } = query;
  return { status: 200, body: await approvals.listApprovals(filters, { limit, offset }) };
});

export const getApproval = httpHandler(getApprovalEndpoint, async ({ params }) => ({ status: 200, body: await approvals.getApproval(params.id) }));

export const approveRequest = httpHandler(approveRequestEndpoint, async ({ params, body, principal, authorize }) => {
  authorize(await approvals.scopeOfApproval(params.id));
  return { status: 200, body: await approvals.approve(params.id, principal.subject, body.comment ?? null) };
});

export const rejectRequest = httpHandler(rejectRequestEndpoint, async ({ params, body, principal, authorize }) => {
  authorize(await approvals.scopeOfApproval(params.id));
  return { status: 200, body: await approvals.reject(params.id, principal.subject, body.comment ?? null) };
});
