/**
 * The shapes of the JSON columns, as plain types that import nothing: the floor of the house. The
 * API's zod schemas (lib/governance/evaluation/report.ts, disagreement.ts) are checked against them
 * (`satisfies`), so the two cannot drift.
 */

/** A descriptor as it travels: its value (what policies see) and its text (what remote engines get). */
export interface Descriptor {
  readonly value: Record<string, unknown>;
  readonly text: string;
  /** Given as an object, not as text: `text` is ours, so no error is located in it. */
  readonly fromObject?: true;
}

/** A version of a policy or metric. */
export interface EntityKey {
  id: string;
  version: number;
}

export interface ResourceIdentity {
  id: string;
  displayName: string | null;
  version: string | null;
}

/**
 * What a report evaluates, stored with it so that any process can run (or re-run) it. `queued`:
 * every environment's perimeter, page by page, by the queue-invoked worker (queued-evaluation.ts).
 */
export type ReportRequest =
  /** `dryRun`: an Evaluate by a caller who may not speak for the resource: its results stay with the report (docs/authorization.md). */
  | { mode: 'descriptor'; entities: EntityKey[]; resource: ResourceIdentity; descriptor: Descriptor; dryRun?: true }
  | { mode: 'perimeter'; entities: EntityKey[] }
  /** `baselineVersion`: the version enforced before a publish, whose newest results tell what the publish newly fails. */
  | { mode: 'queued'; entities: EntityKey[]; baselineVersion?: number };

/** An engine's verdict on one resource, as a result stores it (the API's `EvaluationResult.result`). */
export interface StoredVerdict {
  satisfiesPolicy: boolean;
  isError: boolean;
  errors: string[];
  details?: Record<string, unknown>;
  /** A metric's number, and the threshold it falls in. */
  value?: number;
  threshold?: { label: string; color: string; min?: number; max?: number };
  /** CUE: where in the descriptor the field each error names is, in the order of errors. */
  locations?: { path: string; line: number; column: number }[];
}

/** What one CUE evaluator answered, as a disagreement stores it. */
export interface DisagreementVerdict {
  satisfiesPolicy: boolean;
  isError: boolean;
  errors: string[];
}

/**
 * Why a queued evaluation's page is waiting: `call`, the resolver call is being retried by the
 * worker (attempt n of resolver-retries + 1); `delivery`, the page's message will be delivered again
 * (attempt n of the queue's receive limit).
 */
export interface TaskWaiting {
  kind: 'call' | 'delivery';
  /** Where the page that waits starts. */
  offset: number;
  /** What failed, naming no internal address. */
  reason: string;
  attempt: number;
  attempts: number;
  nextTryAt: string;
}
