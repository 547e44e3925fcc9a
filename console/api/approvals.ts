import type { ApprovalKind, ApprovalStatus } from '#lib/authorization/approval';
import type { approveRequestEndpoint, getApprovalEndpoint, listApprovalsEndpoint, rejectRequestEndpoint } from '#lib/governance/approvals/endpoints';
import type { policyEndpoints } from '#lib/governance/policies/endpoints';

import type { PermissionOf } from './access';
import { call } from './client';
import type { Answer } from './contracts';
import type { PageRequest } from './governance';
import { routes } from './routes';

/** A request for approval (four-eyes): the entity, what is asked, its diff, who asked, its decision. */
export type Approval = Answer<typeof getApprovalEndpoint>;
type ApprovalPage = Answer<typeof listApprovalsEndpoint>;
/** The 202 of a publish, a status move or a new exception under four-eyes: nothing changed yet, the request. */
export type ApprovalRequested = Answer<(typeof policyEndpoints)['publish'], '202'>;

/** The list filters (lib/governance/approvals/approval.ts; the console names them here, no zod in the bundle). */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const satisfies readonly ApprovalStatus[];
export const APPROVAL_KINDS = [
  'publish',
  'status',
  'exception',
  'rollout',
  'role-binding',
  'resource-type',
  'model-config',
] as const satisfies readonly ApprovalKind[];

export interface ApprovalFilters {
  readonly status?: ApprovalStatus;
  readonly kind?: ApprovalKind;
}

/** What deciding needs (the approve and reject endpoints' contracts; where: the API checks the request's resource type and environment). */
export const DECIDE = 'approvals:decide' satisfies PermissionOf<typeof approveRequestEndpoint> & PermissionOf<typeof rejectRequestEndpoint>;

/** Whether a change's answer is a request for approval (202) rather than the change made (200, 201). */
export const sentForApproval = (answer: object): answer is ApprovalRequested => 'approvalId' in answer;

export const listApprovals = (filters: ApprovalFilters, page: PageRequest, signal?: AbortSignal): Promise<ApprovalPage> =>
  call(routes.listApprovals, { query: { ...filters, ...page }, signal });

export const readApproval = (id: string, signal?: AbortSignal): Promise<Approval> => call(routes.getApproval, { params: { id }, signal });

/** Approve or reject the request of another person (403 on one's own, 409 once decided, expired or changed). */
export const decideApproval = (id: string, decision: 'approve' | 'reject', comment: string): Promise<Answer<typeof approveRequestEndpoint>> =>
  decision === 'approve'
    ? call(routes.approveRequest, { params: { id }, body: comment ? { comment } : {} })
    : call(routes.rejectRequest, { params: { id }, body: comment ? { comment } : {} });
