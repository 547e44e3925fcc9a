import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  type PgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

import type { DisagreementVerdict, ReportRequest, StoredVerdict, TaskWaiting } from './json-columns';

/**
 * A policy's or metric's name as lists sort it, case-insensitively (by the database's collation): the
 * expression of the index governance_entities_list and of the lists' ORDER BY
 * (lib/governance/policies/entity-repository.ts), one expression so that PostgreSQL reads a page from the index.
 */
export const lowerName = (name: AnyPgColumn) => sql`lower(${name})`;

/** Governance: resource types, environments, policies and metrics, evaluations and their results, compliance, exceptions, approvals, rollouts and impact reports. */
export function governanceTables(schema: PgSchema) {
  /** Resource types, from application.conf (registered at start) or the API. */
  const resourceTypes = schema.table('resource_types', {
    name: text('name').primaryKey(),
    displayName: text('display_name').notNull(),
    /** Null when the type has no descriptor configuration (the caller of Evaluate supplies ids). */
    resourceNameField: text('resource_name_field'),
    resourceDisplayNameFields: jsonb('resource_display_name_fields').$type<string[]>().notNull().default([]),
    resourceFilterField: text('resource_filter_field'),
    /** The descriptor field naming the resource's owner (impact reports group by it; owners are told). */
    resourceOwnerField: text('resource_owner_field'),
    batchSize: integer('batch_size'),
    resolverUrl: text('resolver_url').notNull(),
    resolverPath: text('resolver_path').notNull(),
    source: text('source', { enum: ['settings', 'api'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: text('updated_by').notNull(),
  });
  /** The platform's environments as last pulled at start (or the static list of the settings). */
  const environments = schema.table('environments', {
    name: text('name').primaryKey(),
    /** What the platform said about it, as received. */
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    source: text('source', { enum: ['platform', 'settings'] }).notNull(),
    refreshedAt: timestamp('refreshed_at', { withTimezone: true }).notNull().defaultNow(),
  });
  /**
   * One row: a number every change of resource_types, environments and governance_entities adds one
   * to, in the transaction of the change (a trigger before each statement: migration 0029), so that
   * it is seen exactly when the change is. What a process keeps of those tables is good while the
   * number has not moved (lib/governance/evaluation/evaluation-set-cache.ts).
   */
  const governanceGeneration = schema.table('governance_generation', {
    id: integer('id').primaryKey().default(1),
    value: bigint('value', { mode: 'number' }).notNull().default(0),
  });
  /**
   * Policies and metrics, one row per version. `id` names the entity across its versions; the
   * content of a version that left `draft` never changes (an edit writes the next version).
   */
  const governanceEntities = schema.table(
    'governance_entities',
    {
      id: uuid('id').notNull(),
      version: integer('version').notNull(),
      kind: text('kind', { enum: ['policy', 'metric'] }).notNull(),
      /** The newest version of the entity: what reads, edits and moves act on by default. */
      latest: boolean('latest').notNull(),
      name: text('name').notNull(),
      description: text('description').notNull().default(''),
      resourceType: text('resource_type').notNull(),
      /** Null: every environment. */
      environment: text('environment'),
      severity: text('severity', { enum: ['info', 'warning', 'error'] }).notNull(),
      interactionType: text('interaction_type'),
      tags: jsonb('tags').$type<string[]>().notNull().default([]),
      engine: text('engine', { enum: ['cue', 'remote', 'llm'] }),
      cueScript: text('cue_script'),
      requireConcrete: boolean('require_concrete').notNull().default(true),
      remoteEngineUrl: text('remote_engine_url'),
      /** llm: the requirement in natural language. */
      llmRule: text('llm_rule'),
      trigger: text('trigger', { enum: ['active', 'passive'] }).notNull(),
      timing: text('timing', { enum: ['deployment', 'runtime'] }).notNull(),
      cronExpression: text('cron_expression'),
      strategy: text('strategy', { enum: ['default', 'previous_vs_current'] }).notNull(),
      status: text('status', { enum: ['draft', 'grace', 'enabled', 'disabled'] }).notNull(),
      thresholds: jsonb('thresholds').$type<{ label: string; color: string; min?: number; max?: number }[]>(),
      /** cue: the evaluator chosen when this version was saved, and why when it is not the native one; null: saved before the choice existed. */
      evaluator: text('evaluator', { enum: ['native', 'wasm'] }),
      evaluatorReason: text('evaluator_reason'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      createdBy: text('created_by').notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
      updatedBy: text('updated_by').notNull(),
    },
    (table) => [
      primaryKey({ columns: [table.id, table.version] }),
      uniqueIndex('governance_entities_latest')
        .on(table.id)
        .where(sql`latest`),
      // A list page in its default order (lower(name), then name, then id) among the newest versions of a kind.
      index('governance_entities_list')
        .on(table.kind, lowerName(table.name), table.name, table.id)
        .where(sql`latest`),
      // What Evaluate looks for: the active entities of a type.
      index('governance_entities_active')
        .on(table.resourceType, table.status)
        .where(sql`status in ('enabled', 'grace')`),
    ],
  );
  /** One evaluation: of a descriptor (Evaluate), of a policy (test, publish, schedule). */
  const evaluationReports = schema.table(
    'evaluation_reports',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      status: text('status', { enum: ['pending', 'running', 'completed', 'failed'] })
        .notNull()
        .default('pending'),
      scope: text('scope', { enum: ['resource', 'policy'] }).notNull(),
      /** What started it. A `test` stores its results with the report only, never in the history. */
      cause: text('cause', { enum: ['evaluate', 'test', 'publish', 'schedule', 'impact'] }).notNull(),
      /** Null for an evaluation of every environment (publish and schedule of an entity of every environment). */
      environment: text('environment'),
      resourceType: text('resource_type').notNull(),
      labels: jsonb('labels').$type<string[]>().notNull().default([]),
      /** Everything needed to (re)run it: the work is idempotent, so a crashed run is simply run again. */
      request: jsonb('request').$type<ReportRequest>().notNull(),
      outcome: text('outcome', { enum: ['ok', 'waived', 'info', 'warning', 'error', 'failed'] }),
      passed: boolean('passed'),
      total: integer('total').notNull().default(0),
      done: integer('done').notNull().default(0),
      error: text('error'),
      /** A run holds the report until then; after it, anyone may take the report over. */
      leaseUntil: timestamp('lease_until', { withTimezone: true }),
      attempts: integer('attempts').notNull().default(0),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      createdBy: text('created_by').notNull(),
      completedAt: timestamp('completed_at', { withTimezone: true }),
    },
    (table) => [
      index('evaluation_reports_unfinished')
        .on(table.leaseUntil)
        .where(sql`status in ('pending', 'running')`),
    ],
  );
  /** Every result ever produced: append-only history. */
  const evaluationResults = schema.table(
    'evaluation_results',
    {
      id: bigserial('id', { mode: 'number' }).primaryKey(),
      /** Null for passive results, pushed by an outside checker. */
      reportId: uuid('report_id'),
      /** False for results of a policy test: they belong to the report, not to the history. */
      recorded: boolean('recorded').notNull(),
      entityId: uuid('entity_id').notNull(),
      entityVersion: integer('entity_version').notNull(),
      entityKind: text('entity_kind', { enum: ['policy', 'metric'] }).notNull(),
      entityStatus: text('entity_status', { enum: ['draft', 'grace', 'enabled', 'disabled'] }).notNull(),
      severity: text('severity', { enum: ['info', 'warning', 'error'] }).notNull(),
      outcome: text('outcome', { enum: ['ok', 'waived', 'info', 'warning', 'error', 'failed'] }).notNull(),
      resourceId: text('resource_id').notNull(),
      resourceDisplayName: text('resource_display_name'),
      resourceVersion: text('resource_version'),
      /** Read from the descriptor's field its type names as the owner's (resourceOwnerField), when it has one. */
      resourceOwner: text('resource_owner'),
      environment: text('environment').notNull(),
      resourceType: text('resource_type').notNull(),
      result: jsonb('result').$type<StoredVerdict>().notNull(),
      value: doublePrecision('value'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (table) => [
      // A report re-run after a crash, or a queue message delivered twice, writes nothing twice.
      uniqueIndex('evaluation_results_per_report').on(table.reportId, table.environment, table.entityId, table.entityVersion, table.resourceId),
      // "The latest result per (entity, resource, environment)": one index walk; with the time, outcome and type
      // after the key, the compliance of a past day (its newest result per pair) is read from the index alone.
      index('evaluation_results_latest')
        .on(table.entityId, table.resourceId, table.environment, table.id.desc(), table.createdAt, table.outcome, table.resourceType)
        .where(sql`recorded`),
      index('evaluation_results_resource')
        .on(table.resourceId, table.id.desc())
        .where(sql`recorded`),
      // A report's results read page by page in their order (GET .../evaluation-reports/{id}/results).
      index('evaluation_results_report_order').on(table.reportId, table.id),
    ],
  );
  /**
   * The newest recorded result of each (entity, resource, environment), kept beside the history by
   * the statement that writes results, so that the compliance summary reads one row per pair
   * instead of walking the whole history.
   */
  const latestResults = schema.table(
    'latest_results',
    {
      entityId: uuid('entity_id').notNull(),
      resourceId: text('resource_id').notNull(),
      environment: text('environment').notNull(),
      resourceType: text('resource_type').notNull(),
      outcome: text('outcome', { enum: ['ok', 'waived', 'info', 'warning', 'error', 'failed'] }).notNull(),
      /** The evaluation_results row it copies. */
      resultId: bigint('result_id', { mode: 'number' }).notNull(),
    },
    (table) => [primaryKey({ columns: [table.entityId, table.resourceId, table.environment] })],
  );
  /** The days whose compliance was recorded (a day with no resource has no compliance_days row). */
  const complianceSnapshotDays = schema.table('compliance_snapshot_days', {
    day: date('day', { mode: 'string' }).primaryKey(),
    takenAt: timestamp('taken_at', { withTimezone: true }).notNull().defaultNow(),
  });
  /** Resources per worst outcome at the end of a past day (UTC), per environment and type: the compliance trend. */
  const complianceDays = schema.table(
    'compliance_days',
    {
      day: date('day', { mode: 'string' })
        .notNull()
        .references(() => complianceSnapshotDays.day, { onDelete: 'cascade' }),
      environment: text('environment').notNull(),
      resourceType: text('resource_type').notNull(),
      ok: integer('ok').notNull(),
      waived: integer('waived').notNull().default(0),
      info: integer('info').notNull(),
      warning: integer('warning').notNull(),
      error: integer('error').notNull(),
      failed: integer('failed').notNull(),
    },
    (table) => [primaryKey({ columns: [table.day, table.environment, table.resourceType] })],
  );
  /**
   * Exceptions (waivers): while one is active, a non-compliance of its policy or metric on the
   * resources its pattern matches, in its environment (null: every one), is `waived`.
   */
  const governanceExceptions = schema.table(
    'governance_exceptions',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      entityId: uuid('entity_id').notNull(),
      entityKind: text('entity_kind', { enum: ['policy', 'metric'] }).notNull(),
      /** The resource id or glob as given (`*`, `?`, `\` escaping). */
      resourceId: text('resource_id').notNull(),
      /** The same as a LIKE pattern (escape `\`), which matching reads. */
      resourceLike: text('resource_like').notNull(),
      environment: text('environment'),
      reason: text('reason').notNull(),
      ticket: text('ticket'),
      expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      /** Who asked for it (under four-eyes, the requester; otherwise the caller that created it). */
      createdBy: text('created_by').notNull(),
      /** Who approved the request that created it under four-eyes; null when it was created directly. */
      approvedBy: text('approved_by'),
      /** When the notice that it is about to expire was written to the outbox: it is sent once. */
      expiryNoticeAt: timestamp('expiry_notice_at', { withTimezone: true }),
    },
    (table) => [
      index('governance_exceptions_entity').on(table.entityId, table.expiresAt),
      index('governance_exceptions_unnoticed')
        .on(table.expiresAt)
        .where(sql`expiry_notice_at is null`),
    ],
  );
  /**
   * The queued work of an evaluation of a whole perimeter (publish, schedule): one row per
   * environment, walking the perimeter resolver's pages from `offset`. A queue message names a
   * task; whoever receives it claims the task, so a message delivered twice does the work once.
   */
  const evaluationTasks = schema.table(
    'evaluation_tasks',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      reportId: uuid('report_id')
        .notNull()
        .references(() => evaluationReports.id, { onDelete: 'cascade' }),
      environment: text('environment').notNull(),
      status: text('status', { enum: ['queued', 'running', 'done', 'failed'] })
        .notNull()
        .default('queued'),
      /** The next page to evaluate starts here. */
      offset: integer('offset').notNull().default(0),
      /** Resources evaluated so far, and how many the resolver said there are (its `page.total`), when it says. */
      resources: integer('resources').notNull().default(0),
      expectedResources: integer('expected_resources'),
      /** Failed attempts at the current page; a page that succeeds resets it. */
      attempts: integer('attempts').notNull().default(0),
      lastError: text('last_error'),
      /** While the current page is being retried: what failed, attempt n of m, the next try (shown on the running report). */
      waiting: jsonb('waiting').$type<TaskWaiting>(),
      /** When the message naming it last reached the queue; null: it has to be sent (again). */
      sentAt: timestamp('sent_at', { withTimezone: true }),
      /** A worker holds the task until then. */
      leaseUntil: timestamp('lease_until', { withTimezone: true }),
      /** Where the worker's time went, summed over the pages: waiting for the resolver (pages read ahead cost none), engine runs, database writes. */
      resolverMs: integer('resolver_ms').notNull().default(0),
      engineMs: integer('engine_ms').notNull().default(0),
      databaseMs: integer('database_ms').notNull().default(0),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (table) => [
      uniqueIndex('evaluation_tasks_per_environment').on(table.reportId, table.environment),
      index('evaluation_tasks_unfinished')
        .on(table.updatedAt)
        .where(sql`status in ('queued', 'running')`),
    ],
  );
  /**
   * The cron policies that are scheduled: one row per entity, naming the enabled version whose
   * expression it runs and when it is next due. The dispatcher claims due rows (SKIP LOCKED) and
   * moves `nextRunAt` on in the transaction that records the run, so one tick runs once.
   */
  const cronSchedules = schema.table(
    'cron_schedules',
    {
      entityId: uuid('entity_id').primaryKey(),
      entityVersion: integer('entity_version').notNull(),
      cronExpression: text('cron_expression').notNull(),
      nextRunAt: timestamp('next_run_at', { withTimezone: true }).notNull(),
      lastRunAt: timestamp('last_run_at', { withTimezone: true }),
      lastReportId: uuid('last_report_id'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (table) => [index('cron_schedules_due').on(table.nextRunAt)],
  );
  /**
   * cue-config.evaluator = shadow: the pairs the native and WebAssembly CUE evaluators judged
   * differently, both verdicts as the engines gave them (satisfiesPolicy, isError, errors).
   */
  const cueDisagreements = schema.table(
    'cue_disagreements',
    {
      id: bigserial('id', { mode: 'number' }).primaryKey(),
      reportId: uuid('report_id').notNull(),
      entityId: uuid('entity_id').notNull(),
      entityVersion: integer('entity_version').notNull(),
      entityKind: text('entity_kind', { enum: ['policy', 'metric'] }).notNull(),
      resourceId: text('resource_id').notNull(),
      environment: text('environment').notNull(),
      native: jsonb('native').$type<DisagreementVerdict>().notNull(),
      wasm: jsonb('wasm').$type<DisagreementVerdict>().notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (table) => [
      // A report re-run after a crash records nothing twice.
      uniqueIndex('cue_disagreements_per_report').on(table.reportId, table.environment, table.entityId, table.entityVersion, table.resourceId),
      index('cue_disagreements_entity').on(table.entityId, table.id.desc()),
    ],
  );
  /**
   * The LLM engine's answers, one per (policy version, descriptor): the same question is not asked
   * twice. `model` is the configuration that answered; another model asks again.
   */
  const llmAnswers = schema.table(
    'llm_answers',
    {
      entityId: uuid('entity_id').notNull(),
      entityVersion: integer('entity_version').notNull(),
      /** sha256 (hex) of the descriptor text sent to the model. */
      descriptorHash: text('descriptor_hash').notNull(),
      model: text('model').notNull(),
      /**
       * sha256 (hex) of the endpoint, deployment and model that answered: an answer is served again
       * only to the same configuration (another endpoint under the same model name asks anew).
       */
      answeredBy: text('answered_by').notNull().default(''),
      satisfiesPolicy: boolean('satisfies_policy').notNull(),
      errors: jsonb('errors').$type<string[]>().notNull(),
      suggestions: jsonb('suggestions').$type<string[]>().notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (table) => [primaryKey({ columns: [table.entityId, table.entityVersion, table.descriptorHash] })],
  );
  /**
   * Four-eyes requests: a change of what the gate enforces (publish, status move, new exception)
   * waiting for another person's decision. `expired` is not stored: a pending request past
   * `expires_at` reads as expired.
   */
  const approvals = schema.table(
    'approvals',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      kind: text('kind', { enum: ['publish', 'status', 'exception', 'rollout', 'role-binding', 'resource-type', 'model-config'] }).notNull(),
      /** The policy or metric a request of the first four kinds concerns; null for the others (`target`). */
      entityKind: text('entity_kind', { enum: ['policy', 'metric'] }),
      entityId: uuid('entity_id'),
      entityName: text('entity_name'),
      /** The resource type it concerns; null: every one (a role binding, a model configuration). */
      resourceType: text('resource_type'),
      /** Null: every environment. */
      environment: text('environment'),
      /** What a request of the service's settings concerns (a role binding, a resource type, a model configuration). */
      target: jsonb('target').$type<{ kind: string; id: string | null; name: string }>(),
      /** A secret the request carries (a model configuration's API key), encrypted as stored ones are; never answered. */
      sealed: text('sealed'),
      /** What is asked, as the call gave it (the version and its fingerprint, the status, the exception). */
      request: jsonb('request').$type<Record<string, unknown>>().notNull(),
      /** What would change, computed when asked. */
      diff: jsonb('diff').$type<Record<string, unknown>>().notNull(),
      status: text('status', { enum: ['pending', 'approved', 'rejected'] })
        .notNull()
        .default('pending'),
      requestedBy: text('requested_by').notNull(),
      requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
      expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
      decidedBy: text('decided_by'),
      decidedAt: timestamp('decided_at', { withTimezone: true }),
      comment: text('comment'),
      /** What the approval made (the report id of a publish's evaluation, the exception's id). */
      outcome: jsonb('outcome').$type<Record<string, unknown>>(),
    },
    (table) => [index('approvals_by_status').on(table.status, table.requestedAt)],
  );
  /**
   * A dated rollout: the version in grace moves to enabled at `enable_at`, through the lifecycle
   * service (functions/schedules/rollout-scheduler.ts). At most one is scheduled per entity.
   */
  const rollouts = schema.table(
    'rollouts',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      entityKind: text('entity_kind', { enum: ['policy', 'metric'] }).notNull(),
      entityId: uuid('entity_id').notNull(),
      version: integer('version').notNull(),
      enableAt: timestamp('enable_at', { withTimezone: true }).notNull(),
      notifyDaysBefore: integer('notify_days_before').notNull().default(7),
      /** When the owners of the resources it will newly fail were told (notify_days_before ahead); once. */
      noticeSentAt: timestamp('notice_sent_at', { withTimezone: true }),
      status: text('status', { enum: ['scheduled', 'done', 'cancelled', 'failed'] })
        .notNull()
        .default('scheduled'),
      /** Why it failed (the version had moved, the lifecycle refused). */
      error: text('error'),
      createdBy: text('created_by').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      /** Four-eyes: who approved it. */
      approvedBy: text('approved_by'),
      endedAt: timestamp('ended_at', { withTimezone: true }),
      endedBy: text('ended_by'),
    },
    (table) => [
      uniqueIndex('rollouts_one_scheduled')
        .on(table.entityId)
        .where(sql`status = 'scheduled'`),
      index('rollouts_due')
        .on(table.enableAt)
        .where(sql`status = 'scheduled'`),
    ],
  );
  /**
   * What a candidate version of a policy or metric would change: its run (an evaluation report of
   * cause `impact`, whose results stay with it) compared, resource by resource, with the newest
   * result of the live version. Counts and groups are written when the run ends.
   */
  const impactReports = schema.table('impact_reports', {
    id: uuid('id').primaryKey().defaultRandom(),
    entityKind: text('entity_kind', { enum: ['policy', 'metric'] }).notNull(),
    entityId: uuid('entity_id').notNull(),
    candidateVersion: integer('candidate_version').notNull(),
    /** The live (enabled or grace) version when it was asked; null when none was live. */
    baselineVersion: integer('baseline_version'),
    evaluationReportId: uuid('evaluation_report_id').notNull(),
    environments: jsonb('environments').$type<string[]>().notNull(),
    /** Written when the run ended: the counts, per environment and per owner. */
    summary: jsonb('summary').$type<Record<string, unknown>>(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  });
  /** Each resource of an impact report with how its verdict changes, written when the run ended; paged by change. */
  const impactResources = schema.table(
    'impact_resources',
    {
      impactReportId: uuid('impact_report_id')
        .notNull()
        .references(() => impactReports.id, { onDelete: 'cascade' }),
      change: text('change', { enum: ['newlyFailing', 'newlyPassing', 'stillFailing', 'stillPassing', 'notEvaluated'] }).notNull(),
      environment: text('environment').notNull(),
      resourceId: text('resource_id').notNull(),
      owner: text('owner'),
      candidateOutcome: text('candidate_outcome').notNull(),
      baselineOutcome: text('baseline_outcome'),
      errors: jsonb('errors').$type<string[]>().notNull(),
      /** A metric's numbers and the labels of the thresholds they fell in (each under its own version's thresholds); null for a policy. */
      candidateValue: doublePrecision('candidate_value'),
      baselineValue: doublePrecision('baseline_value'),
      candidateThreshold: text('candidate_threshold'),
      baselineThreshold: text('baseline_threshold'),
    },
    (table) => [primaryKey({ columns: [table.impactReportId, table.change, table.environment, table.resourceId] })],
  );

  return {
    resourceTypes,
    environments,
    governanceGeneration,
    governanceEntities,
    evaluationReports,
    evaluationResults,
    latestResults,
    complianceSnapshotDays,
    complianceDays,
    governanceExceptions,
    evaluationTasks,
    cronSchedules,
    cueDisagreements,
    llmAnswers,
    approvals,
    rollouts,
    impactReports,
    impactResources,
  };
}
