/**
 * The built-in roles and what each may do (docs/authorization.md). Pure data: the settings, the
 * endpoint contracts, the handler factory and the console read it.
 */
const PERMISSIONS = [
  /** Read policies, metrics, results, reports, exceptions, resource types, configurations (not the audit trail). */
  'governance:read',
  /** Ask the assistant. */
  'assistant:chat',
  /** Evaluate descriptors and record passive results: the CI gate and outside reporters. */
  'evaluations:run',
  /** Create, edit and delete drafts of policies and metrics, and test them. */
  'policies:edit',
  /** Publish and move the status of policies and metrics (a request for approval under four-eyes). */
  'policies:publish',
  /** Create (request, under four-eyes) and delete exceptions. */
  'exceptions:write',
  /** An exception whose glob matches every resource (`*`, `**`). */
  'exceptions:waive-all',
  /** Approve or reject the requests of others. */
  'approvals:decide',
  /** Read the audit trail. */
  'audit:read',
  /** Register, change and delete resource types (and so their resolvers). */
  'resource-types:manage',
  /** Replace the LLM's and the embedder's configurations. */
  'models:manage',
  /** Give and take roles (role bindings kept in the database). */
  'role-bindings:manage',
  /** Rebuild the assistant's knowledge index. */
  'knowledge-index:refresh',
  /** Read the service's operational detail: GET /health?detail=true (docs/operations.md). */
  'operations:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['reader', 'evaluator', 'author', 'approver', 'auditor', 'admin'] as const;

export type Role = (typeof ROLES)[number];

const READER: readonly Permission[] = ['governance:read', 'assistant:chat'];

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  reader: READER,
  evaluator: [...READER, 'evaluations:run'],
  author: [...READER, 'policies:edit', 'policies:publish', 'exceptions:write'],
  approver: [...READER, 'approvals:decide'],
  auditor: [...READER, 'audit:read'],
  admin: PERMISSIONS,
};

export const isRole = (name: string): name is Role => (ROLES as readonly string[]).includes(name);
