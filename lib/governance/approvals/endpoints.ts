import { approval, approvalId, approvalListQuery, decision } from '#lib/authorization/approval';
import { endpoint } from '#lib/http/endpoint';
import { listOf } from '#lib/http/pagination';

const PATH = '/v1/computational-governance/approvals';
const READ = { permission: 'governance:read', scope: 'anywhere' } as const;
const DECIDE = { permission: 'approvals:decide', scope: 'resource' } as const;
const missing = { 404: { description: 'No request has this id' } };
const decided = {
  403: { description: 'The caller made the request (four-eyes), or lacks approvals:decide for its resource type and environment' },
  409: { description: 'The request is decided or expired already, or what it concerns changed since it was made' },
};

export const listApprovalsEndpoint = endpoint({
  operationId: 'listApprovals',
  access: READ,
  method: 'GET',
  path: PATH,
  summary: 'Requests for approval (four-eyes), newest first',
  tags: ['approvals'],
  query: approvalListQuery,
  responses: { 200: { description: 'A page of requests', schema: listOf(approval, 'ApprovalList') } },
});

export const getApprovalEndpoint = endpoint({
  operationId: 'getApproval',
  access: READ,
  method: 'GET',
  path: `${PATH}/{id}`,
  summary: 'A request: the entity, the versions and their diff, who asked and when, its decision',
  tags: ['approvals'],
  params: approvalId,
  responses: { 200: { description: 'The request', schema: approval }, ...missing },
});

export const approveRequestEndpoint = endpoint({
  operationId: 'approveRequest',
  access: DECIDE,
  method: 'POST',
  path: `${PATH}/{id}/approve`,
  summary: 'Approve the request of another person: the change is applied at once (a publish starts its evaluation)',
  tags: ['approvals'],
  params: approvalId,
  body: decision,
  responses: { 200: { description: 'The request, approved, with its outcome', schema: approval }, ...decided, ...missing },
});

export const rejectRequestEndpoint = endpoint({
  operationId: 'rejectRequest',
  access: DECIDE,
  method: 'POST',
  path: `${PATH}/{id}/reject`,
  summary: 'Reject the request of another person: nothing changes',
  tags: ['approvals'],
  params: approvalId,
  body: decision,
  responses: { 200: { description: 'The request, rejected', schema: approval }, ...decided, ...missing },
});
