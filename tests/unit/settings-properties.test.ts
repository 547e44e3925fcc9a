import { describe, expect, it } from 'vitest';

import { loadSettings, type Settings, SettingsError } from '#lib/settings/index';

import { MINIMAL, writeSettingsFile } from '../support/settings-files';

interface Property {
  /** Key under computational-governance-platform, as written in application.conf. */
  key: string;
  read: (settings: Settings) => unknown;
  /** The value when the key is absent (undefined: no default). */
  default: unknown;
  /** A HOCON value and what it reads as. */
  override: [string, unknown];
  /** A HOCON value that must be rejected, and a fragment of the message. */
  bad: [string, string];
  /** Other keys the override and bad value need (HOCON lines). */
  with?: string;
}

const FIRST_SECRET = 'first-backend-secret-0123456789abcdef';
const SECOND_SECRET = 'second-backend-secret-0123456789abcde';

const ENABLED_NOTIFICATION = `computational-governance-platform.notification { enabled = true, url = "https://n.test/api/notifications", secret = "s", failure-event = "f", new-policy-event = "p", new-metric-event = "m" }`;

const properties: Property[] = [
  {
    key: 'cue-config.cue-process-path',
    read: (s) => s.cueConfig.cueProcessPath,
    default: undefined,
    override: ['"/usr/local/bin/cue"', '/usr/local/bin/cue'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'cue-config.timeout',
    read: (s) => s.cueConfig.timeout,
    default: 20_000,
    override: ['"5 seconds"', 5000],
    bad: ['"0s"', 'expected a duration above zero'],
  },
  { key: 'cue-config.workers', read: (s) => s.cueConfig.workers, default: 2, override: ['4', 4], bad: ['0', 'positive integer'] },
  { key: 'cue-config.recycle-after-runs', read: (s) => s.cueConfig.recycleAfterRuns, default: 200, override: ['"50"', 50], bad: ['-3', 'positive integer'] },
  {
    key: 'cue-config.max-output-bytes',
    read: (s) => s.cueConfig.maxOutputBytes,
    default: 16 * 1024 * 1024,
    override: ['1048576', 1_048_576],
    bad: ['100', 'expected an integer'],
  },
  {
    key: 'cue-config.evaluator',
    read: (s) => s.cueConfig.evaluator,
    default: 'native',
    override: ['"shadow"', 'shadow'],
    bad: ['"fast"', 'expected one of native, reference, shadow'],
  },
  { key: 'cue-config.max-steps', read: (s) => s.cueConfig.maxSteps, default: 1_000_000, override: ['"5000"', 5000], bad: ['0', 'positive integer'] },
  {
    key: 'events.enabled',
    read: (s) => s.events.enabled,
    default: false,
    override: ['true', true],
    bad: ['"maybe"', 'expected a boolean'],
    with: 'computational-governance-platform.events { events-backend-base-url = "https://ui.test/api/events", runtime-policy-failed-topic = "t" }',
  },
  {
    key: 'events.events-backend-base-url',
    read: (s) => s.events.eventsBackendBaseUrl,
    default: undefined,
    override: ['"https://ui.test/api/events"', 'https://ui.test/api/events'],
    bad: ['"ui.test/events"', 'absolute http(s) URL'],
  },
  {
    key: 'events.runtime-policy-failed-topic',
    read: (s) => s.events.runtimePolicyFailedTopic,
    default: undefined,
    override: ['"policy-failed"', 'policy-failed'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'notification.mode',
    read: (s) => s.notification.mode,
    default: 'platform',
    override: ['"platform"', 'platform'],
    bad: ['"email"', 'expected "platform"'],
  },
  {
    key: 'notification.enabled',
    read: (s) => s.notification.enabled,
    default: false,
    override: ['true', true],
    bad: ['"sometimes"', 'expected a boolean'],
    with: ENABLED_NOTIFICATION.replace('enabled = true, ', ''),
  },
  {
    key: 'notification.url',
    read: (s) => s.notification.url,
    default: undefined,
    override: ['"https://n.test/api/notifications"', 'https://n.test/api/notifications'],
    bad: ['"/api/notifications"', 'absolute http(s) URL'],
  },
  {
    key: 'notification.failure-event',
    read: (s) => s.notification.failureEvent,
    default: undefined,
    override: ['"scheduled-policy-failure"', 'scheduled-policy-failure'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'notification.new-policy-event',
    read: (s) => s.notification.newPolicyEvent,
    default: undefined,
    override: ['"new-policy"', 'new-policy'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'notification.new-metric-event',
    read: (s) => s.notification.newMetricEvent,
    default: undefined,
    override: ['"new-metric"', 'new-metric'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'notification.exception-expiring-event',
    read: (s) => s.notification.exceptionExpiringEvent,
    default: 'policy-exception-expiring',
    override: ['"waiver-expiring"', 'waiver-expiring'],
    bad: ['""', 'non-empty string'],
  },
  { key: 'notification.secret', read: (s) => s.notification.secret, default: undefined, override: ['"n-secret"', 'n-secret'], bad: ['""', 'non-empty string'] },
  {
    key: 'breaking-change.previous-resource-reference',
    read: (s) => s.breakingChange.previousResourceReference,
    default: 'previous',
    override: ['"deployed"', 'deployed'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'breaking-change.current-resource-reference',
    read: (s) => s.breakingChange.currentResourceReference,
    default: 'current',
    override: ['"candidate"', 'candidate'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'platform-services.base-url',
    read: (s) => s.platformServices.baseUrl,
    default: 'http://platform.test',
    override: ['"https://platform.example:8443"', 'https://platform.example:8443'],
    bad: ['"ftp://platform"', 'absolute http(s) URL'],
  },
  {
    key: 'platform-services.http-secret',
    read: (s) => s.platformServices.httpSecret,
    default: undefined,
    override: ['"h-secret"', 'h-secret'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'platform-services.environments.environments-path',
    read: (s) => s.platformServices.environments.environmentsPath,
    default: '/api/environments',
    override: ['"/v2/envs"', '/v2/envs'],
    bad: ['"envs"', 'starting with "/"'],
  },
  {
    key: 'platform-services.environments.environments-fetch-retries',
    read: (s) => s.platformServices.environments.environmentsFetchRetries,
    default: 3,
    override: ['7', 7],
    bad: ['-1', 'non-negative integer'],
  },
  {
    key: 'platform-services.environments.static-environments',
    read: (s) => s.platformServices.environments.staticEnvironments,
    default: undefined,
    override: ['[{ name = "dev" }, { name = "prod" }]', [{ name: 'dev' }, { name: 'prod' }]],
    bad: ['[{ title = "dev" }]', 'static-environments'],
  },
  { key: 'platform-services.auth.cache-size', read: (s) => s.platformServices.auth.cacheSize, default: 16, override: ['5', 5], bad: ['0', 'positive integer'] },
  {
    key: 'platform-services.auth.cache-duration',
    read: (s) => s.platformServices.auth.cacheDuration,
    default: 600_000,
    override: ['"2 minutes"', 120_000],
    bad: ['"soon"', 'expected a duration'],
  },
  {
    key: 'platform-services.auth.backend-secrets',
    read: (s) => s.platformServices.auth.backendSecrets,
    default: [],
    override: [`["${FIRST_SECRET}", "${SECOND_SECRET}"]`, [FIRST_SECRET, SECOND_SECRET]],
    bad: ['["thirty-one-bytes-0123456789abcd"]', 'expected a secret of at least 32 bytes (UTF-8)'],
  },
  {
    key: 'platform-services.auth.technical-token-max-lifetime',
    read: (s) => s.platformServices.auth.technicalTokenMaxLifetime,
    default: 86_400_000,
    override: ['"30 days"', 2_592_000_000],
    bad: ['"0 seconds"', 'above zero'],
  },
  {
    key: 'platform-services.auth.basic-auth.enabled',
    read: (s) => s.platformServices.auth.basicAuth.enabled,
    default: false,
    override: ['true', true],
    bad: ['"perhaps"', 'expected a boolean'],
    with: 'computational-governance-platform.platform-services.auth.basic-auth.short-lived-token-duration-seconds = 60',
  },
  {
    key: 'platform-services.auth.basic-auth.short-lived-token-duration-seconds',
    read: (s) => s.platformServices.auth.basicAuth.shortLivedTokenDurationSeconds,
    default: undefined,
    override: ['300', 300],
    bad: ['0', 'positive integer'],
  },
  {
    key: 'platform-services.audit.enabled',
    read: (s) => s.platformServices.audit.enabled,
    default: false,
    override: ['true', true],
    bad: ['"on-weekdays"', 'expected a boolean'],
  },
  {
    key: 'platform-services.audit.audit-path',
    read: (s) => s.platformServices.audit.auditPath,
    default: '/api/audit',
    override: ['"/audit/v2"', '/audit/v2'],
    bad: ['"audit"', 'starting with "/"'],
  },
  {
    key: 'evaluation.enable-on-publish',
    read: (s) => s.evaluation.enableOnPublish,
    default: true,
    override: ['false', false],
    bad: ['"later"', 'expected a boolean'],
  },
  {
    key: 'evaluation.max-attempts',
    read: (s) => s.evaluation.maxAttempts,
    default: 5,
    override: ['"3"', 3],
    bad: ['0', 'positive integer'],
  },
  {
    key: 'exceptions.max-duration',
    read: (s) => s.exceptions.maxDuration,
    default: 90 * 86_400_000,
    override: ['"30 days"', 30 * 86_400_000],
    bad: ['"0s"', 'expected a duration above zero'],
  },
  {
    key: 'exceptions.expiry-notice',
    read: (s) => s.exceptions.expiryNotice,
    default: 7 * 86_400_000,
    override: ['"3 days"', 3 * 86_400_000],
    bad: ['"soon"', 'duration'],
  },
  {
    key: 'database.schema',
    read: (s) => s.database.schema,
    default: 'cgp',
    override: ['"governance"', 'governance'],
    bad: ['"Bad-Name"', 'PostgreSQL schema name'],
  },
  {
    key: 'database.driver',
    read: (s) => s.database.driver,
    default: 'org.postgresql.Driver',
    override: ['"postgres"', 'postgres'],
    bad: ['""', 'non-empty string'],
  },
  {
    key: 'database.url',
    read: (s) => s.database.url,
    default: undefined,
    override: ['"jdbc:postgresql://db.test:5432/gov"', 'jdbc:postgresql://db.test:5432/gov'],
    bad: ['"mysql://db.test/gov"', 'postgresql://'],
  },
  { key: 'database.username', read: (s) => s.database.username, default: undefined, override: ['"gov"', 'gov'], bad: ['""', 'non-empty string'] },
  { key: 'database.password', read: (s) => s.database.password, default: undefined, override: ['"pw"', 'pw'], bad: ['""', 'non-empty string'] },
  { key: 'database.name', read: (s) => s.database.name, default: 'provisioning_coordinator', override: ['"gov"', 'gov'], bad: ['""', 'non-empty string'] },
  { key: 'database.host', read: (s) => s.database.host, default: undefined, override: ['"db.test"', 'db.test'], bad: ['""', 'non-empty string'] },
  { key: 'database.port', read: (s) => s.database.port, default: 5432, override: ['"6543"', 6543], bad: ['70000', 'port number'] },
  {
    key: 'database.migrate-on-start',
    read: (s) => s.database.migrateOnStart,
    default: true,
    override: ['false', false],
    bad: ['"yes please"', 'expected a boolean'],
  },
  {
    key: 'database.repair-on-start',
    read: (s) => s.database.repairOnStart,
    default: false,
    override: ['true', true],
    bad: ['"no thanks"', 'expected a boolean'],
  },
  { key: 'database.thread-pool-size', read: (s) => s.database.threadPoolSize, default: undefined, override: ['4', 4], bad: ['0', 'positive integer'] },
  {
    key: 'database.connection-timeout',
    read: (s) => s.database.connectionTimeout,
    default: undefined,
    override: ['"30 seconds"', 30_000],
    bad: ['"a while"', 'expected a duration'],
  },
  {
    key: 'database.max-lifetime',
    read: (s) => s.database.maxLifetime,
    default: undefined,
    override: ['"30m"', 1_800_000],
    bad: ['"forever"', 'expected a duration'],
  },
  {
    key: 'database.leak-detection-threshold',
    read: (s) => s.database.leakDetectionThreshold,
    default: undefined,
    override: ['"2s"', 2000],
    bad: ['"-2s"', 'expected a duration'],
  },
  {
    key: 'http.client-connect-timeout',
    read: (s) => s.http.clientConnectTimeout,
    default: 10_000,
    override: ['"15s"', 15_000],
    bad: ['"fast"', 'expected a duration'],
  },
  {
    key: 'http.client-read-timeout',
    read: (s) => s.http.clientReadTimeout,
    default: 45_000,
    override: ['"2 minutes"', 120_000],
    bad: ['"slow"', 'expected a duration'],
  },
  { key: 'http.allow-loopback', read: (s) => s.http.allowLoopback, default: undefined, override: ['false', false], bad: ['"maybe"', 'expected a boolean'] },
  {
    key: 'http.allow-private-networks',
    read: (s) => s.http.allowPrivateNetworks,
    default: false,
    override: ['true', true],
    bad: ['"maybe"', 'expected a boolean'],
  },
  {
    key: 'cron-policies.reload-on-start',
    read: (s) => s.cronPolicies.reloadOnStart,
    default: true,
    override: ['false', false],
    bad: ['"sometimes"', 'expected a boolean'],
  },
  {
    key: 'assistant.encryption-key',
    read: (s) => s.assistant.encryptionKey,
    default: undefined,
    override: ['"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    bad: ['"c2hvcnQ="', 'expected 32 bytes in base64'],
  },
  {
    key: 'assistant.previous-encryption-keys',
    read: (s) => s.assistant.previousEncryptionKeys,
    default: [],
    override: [
      '"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=, BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA="',
      ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA='],
    ],
    bad: ['["nope"]', 'expected 32 bytes in base64'],
  },
  { key: 'assistant.max-query-length', read: (s) => s.assistant.maxQueryLength, default: 8000, override: ['2000', 2000], bad: ['0', 'positive integer'] },
  { key: 'assistant.provider-retries', read: (s) => s.assistant.providerRetries, default: 2, override: ['0', 0], bad: ['11', 'at most 10'] },
  {
    key: 'assistant.index.max-chunks',
    read: (s) => s.assistant.index.maxChunks,
    default: 50_000,
    override: ['"2000"', 2000],
    bad: ['0', 'positive integer'],
  },
  { key: 'local.http-port', read: (s) => s.local.httpPort, default: 3000, override: ['3100', 3100], bad: ['"port"', 'positive integer'] },
];

const load = (...lines: string[]) => loadSettings(writeSettingsFile([MINIMAL, ...lines].join('\n')), {});

async function rejection(...lines: string[]): Promise<SettingsError> {
  const error = await load(...lines).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SettingsError);
  return error as SettingsError;
}

describe('setting cue-config.evaluator', () => {
  it('accepts wasm, its former name of reference, as that', async () => {
    expect((await load('computational-governance-platform.cue-config.evaluator = "wasm"')).cueConfig.evaluator).toBe('reference');
    expect((await load('computational-governance-platform.cue-config.evaluator = "reference"')).cueConfig.evaluator).toBe('reference');
  });
});

describe.each(properties)('setting $key', (property) => {
  const line = (value: string) => `computational-governance-platform.${property.key} = ${value}`;

  it('applies its default when absent', async () => {
    expect(property.read(await load())).toEqual(property.default);
  });

  it('reads an override', async () => {
    expect(property.read(await load(property.with ?? '', line(property.override[0])))).toEqual(property.override[1]);
  });

  it('rejects a bad value, naming the full key path', async () => {
    const error = await rejection(property.with ?? '', line(property.bad[0]));
    const where = `computational-governance-platform.${property.key}`;
    const problem = error.problems.find((p) => p.startsWith(`${where}:`) || p.startsWith(`${where}.`));
    expect(problem, error.message).toBeDefined();
    expect(problem).toContain(property.bad[1]);
  });
});
