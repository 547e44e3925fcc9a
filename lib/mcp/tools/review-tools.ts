import { z } from 'zod';

import { APPROVAL_STATUSES } from '#lib/authorization/approval';
import { getApprovalEndpoint } from '#lib/governance/approvals/endpoints';
import { createExceptionEndpoint } from '#lib/governance/exceptions/endpoints';

import { governanceTool } from '../tool';

export const requestException = governanceTool({
  name: 'request_exception',
  title: 'Ask for an exception',
  description:
    'Asks to waive a policy or metric for a resource (or a glob of resources) until a date. Under four-eyes (the usual case) nothing is waived until someone else approves: ' +
    'the answer is the request, whose status get_approval_status reads.',
  inputSchema: {
    policyId: z.uuid().optional().describe('The policy waived (give policyId or metricId)'),
    metricId: z.uuid().optional().describe('The metric waived (give policyId or metricId)'),
    resourceId: z.string().min(1).describe('A resource id, or a glob (* any characters, ? one)'),
    environment: z.string().optional().describe('Absent: every environment'),
    reason: z.string().min(1).max(2000),
    ticket: z.string().max(512).optional(),
    expiresAt: z.iso.datetime({ offset: true }).describe('When the exception ends, such as 2026-12-31T00:00:00Z (at most exceptions.max-duration ahead)'),
  },
  outputSchema: {
    state: z.enum(['requested', 'active']).describe('requested: waiting for a second person (four-eyes); active: waived now'),
    approvalId: z.string().optional().describe('The request for approval, when requested'),
    exceptionId: z.string().optional().describe('The exception, when active'),
  },
  readOnly: false,
  async run(input, { api }) {
    const { status, body } = await api.call(createExceptionEndpoint, { body: input });
    if (status === 202 && 'approvalId' in body) return { state: 'requested' as const, approvalId: body.approvalId };
    return { state: 'active' as const, exceptionId: (body as { id: string }).id };
  },
});

export const getApprovalStatus = governanceTool({
  name: 'get_approval_status',
  title: 'Read a request for approval',
  description: 'A four-eyes request (an exception, a publish, a status change...): its status, who asked, who decided, and their comment.',
  inputSchema: { id: z.uuid().describe('The approvalId') },
  outputSchema: {
    id: z.string(),
    kind: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    target: z.object({ kind: z.string(), id: z.string().nullable(), name: z.string() }),
    requestedBy: z.string(),
    requestedAt: z.string(),
    expiresAt: z.string(),
    decidedBy: z.string().nullable().describe('The approver (or who rejected it)'),
    decidedAt: z.string().nullable(),
    comment: z.string().nullable(),
  },
  readOnly: true,
  async run({ id }, { api }) {
    const { body } = await api.call(getApprovalEndpoint, { params: { id } });
    const { kind, status, target, requestedBy, requestedAt, expiresAt, decidedBy, decidedAt, comment } = body;
    return { id: body.id, kind, status, target, requestedBy, requestedAt, expiresAt, decidedBy, decidedAt, comment };
  },
});
