import { z } from 'zod';

import { paginationQuery } from '#lib/http/pagination';

const APPROVAL_KINDS = ['publish', 'status', 'exception', 'rollout', 'role-binding', 'resource-type', 'model-config'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** One field that the request would change: its value before (null: none) and after. */
const change = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });

const approvalDiff = z
  .object({
    /** The version enforced now (enabled or in grace), if any, and the version the request concerns. */
    enforcedVersion: z.number().int().nullable(),
    requestedVersion: z.number().int().nullable(),
    changes: z.array(change).meta({ description: 'Every field that changes, with its value before and after' }),
    patch: z.string().nullable().meta({ description: 'A unified diff of the script or rule between the enforced version and the requested one' }),
    matchedResources: z.number().int().optional().meta({
      description: 'An exception: how many resources its resourceId matches now, of those its policy has results for (exceptions.max-matched-resources)',
    }),
    impactReportId: z.string().nullable().optional().meta({
      description:
        'A request that would enable a version: the newest impact report of that version, started with the request when it had none (GET /impact-reports/{id}: what it newly fails)',
    }),
  })
  .meta({ id: 'ApprovalDiff' });

export type ApprovalDiff = z.output<typeof approvalDiff>;

export const approval = z
  .object({
    id: z.string(),
    kind: z.enum(APPROVAL_KINDS).meta({
      description:
        "publish, status (a status move), exception (a new exception), rollout (a dated move to enabled); and changes of the service's settings: role-binding (a binding created or deleted), resource-type (registered, replaced or deleted), model-config (the LLM's or the embedder's configuration)",
    }),
    status: z.enum(APPROVAL_STATUSES).meta({ description: 'expired: pending past expiresAt; it can no longer be decided' }),
    entity: z
      .object({
        kind: z.enum(['policy', 'metric']),
        id: z.string(),
        name: z.string(),
        resourceType: z.string(),
        environment: z.string().nullable().meta({ description: 'Null: every environment' }),
      })
      .nullable()
      .meta({ description: 'The policy or metric a publish, status, exception or rollout request concerns; null for the other kinds (see target)' }),
    target: z
      .object({
        kind: z.enum(['policy', 'metric', 'role-binding', 'resource-type', 'llm', 'embedder']),
        id: z
          .string()
          .nullable()
          .meta({ description: "The policy's or metric's id, the binding's id (null: a new one), the resource type's name, llm or embedder" }),
        name: z.string(),
      })
      .meta({ description: 'What the request concerns, whatever its kind' }),
    request: z.record(z.string(), z.unknown()).meta({
      description:
        'What is asked: { version, to } of a move or publish; the exception as it was sent; { action, binding } of a role binding; { action, resourceType } of a resource type; { kind, config } of a model configuration, its API key masked',
    }),
    diff: approvalDiff,
    requestedBy: z.string(),
    requestedAt: z.string(),
    expiresAt: z.string(),
    decidedBy: z.string().nullable(),
    decidedAt: z.string().nullable(),
    comment: z.string().nullable(),
    outcome: z.record(z.string(), z.unknown()).nullable().meta({
      description:
        'What the approval made: { version, evaluationReportId } of a publish, { version, status } of a move, { exceptionId }, { roleBindingId }, { resourceType }, { kind } of a model configuration',
    }),
  })
  .meta({ id: 'Approval' });

export type Approval = z.output<typeof approval>;

/** The 202 answer of a change that became a request (four-eyes). */
export const approvalRequested = approval
  .extend({ approvalId: z.string().meta({ description: 'The id of the request (also at the Location header)' }) })
  .meta({ id: 'ApprovalRequested' });

/** The 202 response of a change of the service's settings under four-eyes (role bindings, resource types, model configurations). */
export const SENT_FOR_APPROVAL = {
  description: 'Four-eyes is on: nothing changed yet; the request for approval, at the Location header, applied when someone else approves it',
  schema: approvalRequested,
} as const;

export const approvalListQuery = paginationQuery.extend({
  status: z.enum(APPROVAL_STATUSES, { error: `status must be one of ${APPROVAL_STATUSES.join(', ')}` }).optional(),
  kind: z.enum(APPROVAL_KINDS, { error: `kind must be one of ${APPROVAL_KINDS.join(', ')}` }).optional(),
});

export type ApprovalFilters = Omit<z.output<typeof approvalListQuery>, 'limit' | 'offset'>;

export const approvalId = z.object({ id: z.uuid({ error: 'id must be a UUID' }) });

export const decision = z
  .strictObject({
    comment: z.string({ error: 'comment must be a string' }).trim().max(2000, 'comment is longer than 2000 characters').optional(),
  })
  .meta({ id: 'ApprovalDecision' });
