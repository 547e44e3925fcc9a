// Four-eyes: exceptions and the approvals of requests.
import { routedHandler } from '#lib/service/routed-handler';

import { approveRequest, getApproval, listApprovals, rejectRequest } from '../governance/approvals';
import { createException, deleteException, getException, listExceptions } from '../governance/exceptions';

export const handler = routedHandler(createException, listExceptions, getException, deleteException, listApprovals, getApproval, approveRequest, rejectRequest);
