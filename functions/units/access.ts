// Who may do what, and what they did: the caller's own access, role bindings, the audit trail.
import { routedHandler } from '#lib/service/routed-handler';

import { createRoleBinding, deleteRoleBinding, getMe, listRoleBindings } from '../governance/access';
import { createAuditCheckpoint, listAuditCheckpoints, listAuditRecords } from '../governance/audit';

export const handler = routedHandler(
  getMe,
  listRoleBindings,
  createRoleBinding,
  deleteRoleBinding,
  listAuditRecords,
  createAuditCheckpoint,
  listAuditCheckpoints,
);
