import { z } from 'zod';

import { ROLES } from '#lib/authorization/roles';

import { duration } from './duration';
import { backendSecret, bool, encryptionKey, httpUrl, int, splitList, text, urlPath } from './values';

// An optional block: when absent it is read as {} so that the defaults of its properties apply.
const block = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape).prefault({} as never);

/** Names of resource types, in settings and in the API. */
export const RESOURCE_TYPE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * The one rule of a resource type's `batch-size` (the page size asked of its perimeter resolver), on
 * both of its paths: application.conf's resource-types and the register API's
 * `configuration.batchSize`. A whole number from 1 to 10,000, also written as a string (the seed
 * writes "50"); when it is not set, DEFAULT_BATCH_SIZE (pageSizeOf in resource-type.ts).
 */
const MAX_BATCH_SIZE = 10_000;
export const DEFAULT_BATCH_SIZE = 100;
export const batchSize = () =>
  z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^\s*\d+\s*$/, 'expected a positive integer')
          .transform(Number),
      ],
      { error: 'expected a positive integer' },
    )
    .pipe(z.number().int('expected a positive integer').positive('expected a positive integer').max(MAX_BATCH_SIZE, `expected at most ${MAX_BATCH_SIZE}`));

const resourceType = z.strictObject({
  name: z.string({ error: 'expected a string' }).regex(RESOURCE_TYPE_NAME, 'expected a name of letters, digits, "_", "." or "-"'),
  'display-name': text().optional(),
  configuration: z
    .strictObject({
      'resource-name': text(),
      'resource-display-name': z
        .union([text(), z.array(text())])
        .transform((value) => (Array.isArray(value) ? value : [value]))
        .optional(),
      'resource-filter': text().optional(),
      // The descriptor field naming the resource's owner (impact reports group by it; owners are told).
      'resource-owner-field': text().optional(),
      'batch-size': batchSize().optional(),
    })
    .optional(),
  'resolver-configuration': z.strictObject({ url: httpUrl(), path: urlPath() }),
});

const breakingChange = z.strictObject({
  'previous-resource-reference': text().default('previous'),
  'current-resource-reference': text().default('current'),
});

const role = z.enum(ROLES, { error: `expected one of ${ROLES.join(', ')}` });

const nameList = (what: string) =>
  z.array(
    z
      .string({ error: `expected ${what}` })
      .trim()
      .min(1, `expected ${what}`),
  );

/** A role binding of application.conf: roles for subjects or groups, within resource types and environments when listed. */
const roleBinding = z
  .strictObject({
    subjects: nameList('a subject').default([]),
    groups: nameList('a group').default([]),
    roles: z.array(role).min(1, 'expected at least one role'),
    'resource-types': nameList('a resource type name').optional(),
    environments: nameList('an environment name').optional(),
  })
  .refine((binding) => binding.subjects.length + binding.groups.length > 0, 'expected at least one subject or group');

const CUE_EVALUATOR_SETTINGS = ['native', 'reference', 'shadow'] as const;
/** Former names of cue-config.evaluator values, still accepted. */
const CUE_EVALUATOR_ALIASES: Readonly<Record<string, (typeof CUE_EVALUATOR_SETTINGS)[number]>> = { wasm: 'reference' };

/** The `computational-governance-platform` block of application.conf, keys as written in the file. */
export const settingsSchema = z.strictObject({
  'cue-config': block({
    'cue-process-path': text().optional(),
    // Longest one CUE run may take; the worker (or process) running it is then killed and replaced.
    timeout: duration()
      .refine((ms) => ms > 0, 'expected a duration above zero')
      .default(20_000),
    // Pre-warmed CUE workers per function container.
    workers: int({ min: 1 }).default(2),
    // A worker is replaced after this many runs, which keeps the memory of WebAssembly CUE bounded.
    'recycle-after-runs': int({ min: 1 }).default(200),
    // Output kept from one `cue` run (external executable); beyond it the run fails.
    'max-output-bytes': int({ min: 1024 }).default(16 * 1024 * 1024),
    // Which evaluator runs CUE policies: native (in process; the reference CUE v0.4 for what it cannot do),
    // reference (CUE v0.4 only; `wasm`, its former name, is accepted), shadow (both; the reference verdict
    // answers, disagreements are recorded).
    evaluator: z
      .preprocess(
        (value) => (typeof value === 'string' ? (CUE_EVALUATOR_ALIASES[value] ?? value) : value),
        z.enum(CUE_EVALUATOR_SETTINGS, { error: `expected one of ${CUE_EVALUATOR_SETTINGS.join(', ')}` }),
      )
      .default('native'),
    // The native evaluation budget per (policy, descriptor), in steps; past it the pair fails.
    'max-steps': int({ min: 1 }).default(1_000_000),
  }),

  events: block({
    enabled: bool().default(false),
    'events-backend-base-url': httpUrl().optional(),
    'runtime-policy-failed-topic': text().optional(),
  }).superRefine((events, ctx) => {
    if (!events.enabled) return;
    for (const key of ['events-backend-base-url', 'runtime-policy-failed-topic'] as const) {
      if (!events[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when events.enabled is true' });
    }
  }),

  notification: z
    .strictObject(
      {
        mode: z.literal('platform', { error: 'expected "platform"' }).default('platform'),
        enabled: bool(),
        url: httpUrl().optional(),
        'failure-event': text().optional(),
        'new-policy-event': text().optional(),
        'new-metric-event': text().optional(),
        // Sent once per exception, `exceptions.expiry-notice` before it expires.
        'exception-expiring-event': text().default('policy-exception-expiring'),
        // Sent to the approvers in scope when a change becomes a request (four-eyes), and to its requester when it is decided.
        'approval-requested-event': text().default('governance-approval-requested'),
        'approval-decided-event': text().default('governance-approval-decided'),
        // Sent once per owner when a published version newly fails resources of theirs (their type's resourceOwnerField).
        'resource-newly-failing-event': text().default('resource-newly-failing'),
        // Sent once per owner, a rollout's notifyDaysBefore ahead of its date, listing their resources it will fail.
        'policy-rollout-notice-event': text().default('policy-rollout-notice'),
        secret: text().optional(),
      },
      { error: 'the notification block is mandatory (set enabled = false to turn notifications off)' },
    )
    .superRefine((notification, ctx) => {
      if (!notification.enabled) return;
      for (const key of ['url', 'secret', 'failure-event', 'new-policy-event', 'new-metric-event'] as const) {
        if (!notification[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when notification.enabled is true' });
      }
    }),

  'breaking-change': breakingChange.prefault({}),

  // The seed: an entry whose name is already registered overwrites it, so the last one wins.
  'resource-types': z
    .array(resourceType)
    .default([])
    .transform((types) => [...new Map(types.map((type) => [type.name, type])).values()]),

  'platform-services': z.strictObject(
    {
      'base-url': httpUrl(),
      'http-secret': text().optional(),
      environments: block({
        'environments-path': urlPath().default('/api/environments'),
        'environments-fetch-retries': int({ min: 0 }).default(3),
        // When set, these are the environments and the platform is not asked (local runs, tests).
        'static-environments': z
          .array(z.strictObject({ name: text() }))
          .min(1, 'expected at least one environment')
          .nullable()
          .optional(),
      }),
      auth: block({
        // Where the platform publishes its JSON Web Key Set; default {base-url}/api/auth/.well-known/jwks.json.
        'jwks-url': httpUrl().optional(),
        // When set, service-account JWTs must carry this `iss` / `aud`.
        issuer: text().optional(),
        audience: text().optional(),
        'cache-size': int({ min: 1 }).default(16),
        'cache-duration': duration().default(600_000),
        // HMAC secrets of technical JWTs: a list, or a comma-separated string (AUTH_BACKEND_SECRETS); each at least 32 bytes.
        'backend-secrets': z
          .union([z.array(z.string({ error: 'expected a string' })), z.string().transform(splitList)], { error: 'expected a list of strings' })
          .pipe(z.array(backendSecret()))
          .default([]),
        // Longest lifetime (exp - iat, or exp - now without iat) of a technical JWT; longer ones are refused.
        'technical-token-max-lifetime': duration()
          .refine((ms) => ms > 0, 'expected a duration above zero')
          .default(86_400_000),
        'basic-auth': block({
          enabled: bool().default(false),
          'short-lived-token-duration-seconds': int({ min: 1 }).optional(),
          // The `scope` asked for in the token exchange.
          scope: text().default('computational-governance'),
        }).superRefine((basic, ctx) => {
          if (basic.enabled && basic['short-lived-token-duration-seconds'] === undefined) {
            ctx.addIssue({ code: 'custom', path: ['short-lived-token-duration-seconds'], message: 'required when basic-auth.enabled is true' });
          }
        }),
      }),
      audit: block({
        enabled: bool().default(false),
        'audit-path': urlPath().default('/api/audit'),
      }),
    },
    { error: 'the platform-services block is required' },
  ),

  evaluation: block({
    'enable-on-publish': bool().default(true),
    // How many times a failed perimeter resolver call (unreachable, timed out, 429, 5xx) is retried, with backoff.
    'resolver-retries': int({ min: 0 }).default(3),
    // How many times a report is started before the sweeper gives up on it (a run that always dies): then `failed`.
    'max-attempts': int({ min: 1 }).default(5),
    // The longest an evaluation run in a function of the API or the sweeper (Evaluate, a policy test, or
    // one the sweeper took over) may take: past it, its calls are cut and the report fails, naming this setting.
    'run-timeout': duration()
      .refine((ms) => ms > 0, 'expected a duration above zero')
      .default(300_000),
    // The queue of evaluation tasks (lib/queue). No defaults: serverless.yml defines these values
    // and passes them as environment variables (docs/settings.md, "The evaluation queue").
    queue: block({
      // The SQS queue URL; unset, not an http(s) URL or under serverless offline: the local Lambda endpoint.
      url: text().optional(),
      // Another SQS endpoint (LocalStack, tests).
      endpoint: httpUrl().optional(),
      // Deliveries of a message before it is dead-lettered (SQS's maxReceiveCount; the sweeper's locally).
      'max-receives': int({ min: 1 }).optional(),
      // How long SQS waits before it delivers a failed message again (its VisibilityTimeout).
      'visibility-timeout': duration().optional(),
      // Under serverless offline: the Lambda endpoint the worker is invoked through, and its function name.
      'local-lambda-endpoint': httpUrl().optional(),
      'worker-function': text().optional(),
    }),
  }),

  // Who may do what (docs/authorization.md): roles given by bindings, by the token's claims, and to technical JWTs.
  authorization: block({
    // Roles given to subjects or groups, optionally limited to resource types and environments.
    bindings: z.array(roleBinding).default([]),
    // The claim of a service-account (or technical) JWT that lists its roles, and the one that lists its groups.
    'roles-claim': text().default('roles'),
    'groups-claim': text().default('groups'),
    // The roles of a technical JWT without a roles claim (the platform's own backend calls).
    'technical-token-roles': z.array(role).default(['reader', 'evaluator']),
    'four-eyes': block({
      // Publishing, status moves and new exceptions become requests another person approves.
      // Unset: on when deployed, off under npm start (CGP_FOUR_EYES in application.conf).
      enabled: bool().optional(),
      // A pending request expires after this long.
      expiry: duration()
        .refine((ms) => ms > 0, 'expected a duration above zero')
        .default(7 * 86_400_000),
    }),
  }),

  // The outbox (audit records, notifications, events, knowledge-index changes): docs/settings.md, "The outbox".
  outbox: block({
    // Deliveries of a message before it is given up (`dead`, kept and logged); retries back off to 15 minutes apart.
    'max-attempts': int({ min: 1 }).default(100),
    // How long a delivered message is kept before the purge deletes it.
    retention: duration()
      .refine((ms) => ms > 0, 'expected a duration above zero')
      .default(7 * 86_400_000),
  }),

  // How many days what piles up is kept before the retention purge (functions/schedules/retention-purge.ts) deletes it.
  retention: block({
    // Finished evaluation reports (with the descriptors they were asked about and a test's results); the
    // results history keeps, past this, only what the compliance trend still needs.
    reports: int({ min: 1 }).default(90),
    // Chat conversations, counted from their last turn.
    conversations: int({ min: 1 }).default(30),
    // The LLM engine's stored answers (the same question is asked again after this).
    'llm-answers': int({ min: 1 }).default(30),
    // Disagreements found by the shadow evaluator.
    disagreements: int({ min: 1 }).default(90),
  }),

  // Exceptions (waivers) of a policy or metric for some resources (docs/governance.md, "Exceptions").
  exceptions: block({
    // The furthest ahead an exception may expire, counted from its creation.
    'max-duration': duration()
      .refine((ms) => ms > 0, 'expected a duration above zero')
      .default(90 * 86_400_000),
    // How long before its expiry an exception is announced (the exception-expiring-event notification).
    'expiry-notice': duration().default(7 * 86_400_000),
    // An exception whose resource id pattern matches more of the resources its policy has results for
    // needs the permission exceptions:waive-all (admin), as a pattern of wildcards alone does.
    'max-matched-resources': int({ min: 0 }).default(50),
  }),

  database: z.strictObject(
    {
      schema: z
        .string()
        .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a PostgreSQL schema name (lower-case letters, digits, "_")')
        .default('cgp'),
      driver: text().default('org.postgresql.Driver'),
      url: z
        .string()
        .regex(/^(jdbc:)?postgres(ql)?:\/\/\S+$/, 'expected a URL such as "postgresql://host:5432/db"')
        .optional(),
      username: text().optional(),
      password: text().optional(),
      name: text().default('provisioning_coordinator'),
      host: text().optional(),
      port: int({ min: 1 })
        .refine((port) => port <= 65535, 'expected a port number (1-65535)')
        .default(5432),
      'migrate-on-start': bool().default(true),
      'repair-on-start': bool().default(false),
      'thread-pool-size': int({ min: 1 }).optional(),
      // Statements prepared once per connection (named) and then bound and run in one round trip; false for
      // a connection pooler that cannot keep a connection's prepared statements (PgBouncer before 1.21 in transaction mode).
      'prepared-statements': bool().default(true),
      'connection-timeout': duration().optional(),
      'max-lifetime': duration().optional(),
      'leak-detection-threshold': duration().optional(),
      // Server-side bounds of every pooled connection (0 = none): a statement running longer, a lock waited for longer,
      // a transaction left idle longer (a worker killed inside it) are ended by PostgreSQL, which frees their locks.
      'statement-timeout': duration().default(60_000),
      'lock-timeout': duration().default(10_000),
      'idle-in-transaction-timeout': duration().default(60_000),
      // TLS to the database: disable, prefer, require or verify-full (postgres.js's sslmode). Unset: the URL's
      // sslmode when it has one, else require when deployed and none locally (the embedded PostgreSQL has no TLS).
      ssl: z.enum(['disable', 'prefer', 'require', 'verify-full'], { error: 'expected one of disable, prefer, require, verify-full' }).optional(),
    },
    { error: 'the database block is required' },
  ),

  http: block({
    'client-connect-timeout': duration().default(10_000),
    'client-read-timeout': duration().default(45_000),
    // The longest answer body an outbound call reads (platform, resolvers, remote engines, model providers, key sets).
    'max-response-bytes': int({ min: 1024 }).default(10 * 1024 * 1024),
    // Whether URLs callers give (model endpoints, resolvers, remote engines) may reach loopback
    // addresses; unset: yes locally (npm start, tests), no when deployed.
    'allow-loopback': bool().optional(),
    // Whether they may reach private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7).
    'allow-private-networks': bool().default(false),
  }),

  'cron-policies': block({
    'reload-on-start': bool().default(true),
    // The IANA time zone cron expressions are read in ("0 0 6 * * ?" is 06:00 there).
    'time-zone': text()
      .refine((zone) => {
        try {
          new Intl.DateTimeFormat('en', { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      }, 'expected an IANA time zone such as "UTC" or "Europe/Rome"')
      .default('UTC'),
  }),

  // The audit chain's signed checkpoints (docs/authorization.md, "The audit trail").
  'audit-chain': block({
    // base64 of 32 random bytes: the seed of the Ed25519 key that signs the checkpoints. Required when deployed.
    'signing-key': encryptionKey().optional(),
    // How often the chain's head is signed when it grew (by the outbox dispatcher's schedule).
    'checkpoint-interval': duration().default(300_000),
    // The longest a call's record may wait to be linked into the chain (by the chainer after calls,
    // and the outbox dispatcher's run each minute); /health?detail=true says when one waits longer.
    'link-within': duration().default(120_000),
    // The S3 bucket with Object Lock each checkpoint is also copied to (the template's AuditCheckpointBucket); unset: none.
    'checkpoint-bucket': text().optional(),
    // How far before its moment an evidence pack's stretch of the chain starts (at the newest checkpoint signed then).
    'evidence-stretch': duration().default(86_400_000),
  }),

  assistant: block({
    // base64 of 32 random bytes (AES-256-GCM key for the stored provider API keys).
    'encryption-key': encryptionKey().optional(),
    // Keys being rotated out: still read, never written (docs/assistant.md).
    'previous-encryption-keys': z
      .union([z.array(encryptionKey()), z.string().transform(splitList)])
      .pipe(z.array(encryptionKey()))
      .default([]),
    'max-query-length': int({ min: 1 }).default(8000),
    'provider-retries': int({ min: 0 })
      .refine((n) => n <= 10, 'expected at most 10')
      .default(2),
    // The knowledge index (docs/assistant.md "Knowledge index").
    index: block({
      // Texts per embeddings call.
      'batch-size': int({ min: 1 })
        .refine((n) => n <= 2048, 'expected at most 2048 (the provider limit of inputs per call)')
        .default(64),
      // Chunks the index holds at most: refreshes refuse sources past it, and a function's in-memory copy of the vectors holds no more.
      'max-chunks': int({ min: 1 })
        .refine((n) => n <= 1_000_000, 'expected at most 1000000')
        .default(50_000),
    }),
    // Grounded chat (docs/assistant.md "Retrieval" and "Conversations").
    retrieval: block({
      // Chunks given to the LLM per question.
      'top-k': int({ min: 1 })
        .refine((n) => n <= 50, 'expected at most 50')
        .default(8),
    }),
    conversation: block({
      // Turns (question and answer) kept per conversation and sent again with the next question.
      'max-turns': int({ min: 1 })
        .refine((n) => n <= 100, 'expected at most 100')
        .default(10),
    }),
    // Tools the LLM may call while answering (docs/assistant.md "Tools").
    tools: block({
      // Model turns that may call tools before the one that must answer.
      'max-rounds': int({ min: 0 })
        .refine((n) => n <= 10, 'expected at most 10')
        .default(4),
      // Times a drafted CUE policy that does not compile goes back to the model with the error.
      'draft-repairs': int({ min: 0 })
        .refine((n) => n <= 5, 'expected at most 5')
        .default(2),
      // Proposals a descriptor fix may take; each is re-checked against every policy in force.
      'fix-rounds': int({ min: 1 })
        .refine((n) => n <= 10, 'expected at most 10')
        .default(3),
    }),
  }),

  // What operators see (docs/operations.md): metrics in CloudWatch's embedded metric format.
  observability: block({
    metrics: block({
      // Off: no metric line is written (the functions still run the same).
      enabled: bool().default(true),
      // The CloudWatch namespace; serverless.yml's alarms and dashboard read the same one (custom.observability.namespace).
      namespace: text()
        .regex(/^[A-Za-z0-9._#:/-]{1,255}$/, 'expected 1 to 255 letters, digits or . _ # : / -')
        .default('ComputationalGovernance'),
    }),
  }),

  local: block({ 'http-port': int({ min: 1 }).default(3000) }),
});

export type RawSettings = z.output<typeof settingsSchema>;
