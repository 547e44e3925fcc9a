import type { Approval, ApprovalKind, ApprovalStatus } from '#lib/authorization/approval';
import { approveRequestEndpoint, listApprovalsEndpoint, rejectRequestEndpoint } from '#lib/governance/approvals/endpoints';

import { type ApiAccess, ApiClient } from './api-client';

/** `cgp approvals list`: the requests the filters keep (pending by default), newest first. */
export async function listApprovals(options: ApiAccess & { status?: ApprovalStatus | 'all'; kind?: ApprovalKind }): Promise<Approval[]> {
  const status = options.status ?? 'pending';
  return new ApiClient(options).list(listApprovalsEndpoint, { query: { status: status === 'all' ? undefined : status, kind: options.kind } });
}

/** `cgp approvals approve|reject <id>`: the decision, and the request as decided. */
export async function decideApproval(id: string, decision: 'approve' | 'reject', options: ApiAccess & { comment?: string }): Promise<Approval> {
  const body = options.comment === undefined ? {} : { comment: options.comment };
  const decide = decision === 'approve' ? approveRequestEndpoint : rejectRequestEndpoint;
  return (await new ApiClient(options).call(decide, { params: { id }, body })).body;
}

const what = (approval: Approval) => {
  const entity = `${approval.target.kind} "${approval.target.name}"`;
  if (approval.kind === 'role-binding' || approval.kind === 'resource-type') return `${String(approval.request.action)} ${entity}`;
  if (approval.kind === 'model-config') return `replace the ${approval.target.name}`;
  if (approval.kind === 'exception') return `exception of ${entity} for ${String(approval.request.resourceId)}`;
  if (approval.kind === 'publish') return `publish ${entity} version ${String(approval.request.version)}`;
  return `${entity} version ${String(approval.request.version)}: ${String(approval.request.from)} -> ${String(approval.request.to)}`;
};

/** One line per request: its id, state, what it asks, who asked, until when; then the field changes. */
export function approvalsText(approvals: readonly Approval[]): string {
  const blocks = approvals.map((approval) => {
    const decided = approval.decidedBy ? `, ${approval.status} by ${approval.decidedBy}${approval.comment ? `: ${approval.comment}` : ''}` : '';
    const asked = `asked by ${approval.requestedBy} ${approval.requestedAt}, expires ${approval.expiresAt}${decided}`;
    const head = `${approval.id}  ${approval.status.padEnd(8)}  ${what(approval)}  (${asked})`;
    const changes = approval.diff.changes.map((change) => `    ${change.field}: ${JSON.stringify(change.before)} -> ${JSON.stringify(change.after)}`);
    return [head, ...changes].join('\n');
  });
  return `${[...blocks, `${approvals.length} request${approvals.length === 1 ? '' : 's'}`].join('\n')}\n`;
}

/** What a decision did, in one line. */
export function decisionText(approval: Approval): string {
  const outcome = approval.outcome ?? {};
  const report = typeof outcome.evaluationReportId === 'string' ? `; evaluation report ${outcome.evaluationReportId}` : '';
  const exception = typeof outcome.exceptionId === 'string' ? `; exception ${outcome.exceptionId}` : '';
  return `${approval.status}: ${what(approval)}${report}${exception}\n`;
}
