import pino from 'pino';

import { runtimeEnvironment } from '#lib/settings/environment';
import { SECRET_VARIABLES } from '#lib/settings/secret-parameters';

import { scrubSecrets } from './scrub';

const SECRET_KEYS = [
  'password',
  'secret',
  'token',
  'jwt',
  'apiKey',
  'api_key',
  'api-key',
  'authorization',
  'cookie',
  'httpSecret',
  'http-secret',
  'backendSecrets',
  'backend-secrets',
  'encryptionKey',
  'encryption-key',
  'previousEncryptionKeys',
  'previous-encryption-keys',
  'accessToken',
  'access_token',
  'connectionString',
  'databaseUrl',
  'databaseUrlFromEnvironment',
  // The environment variables of secrets, should an environment be logged (lib/settings/secret-parameters.ts).
  ...SECRET_VARIABLES,
];

// pino's wildcards cover one level each; secrets may sit a few levels deep in logged objects.
const redactPaths = SECRET_KEYS.flatMap((key) => {
  const k = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const join = (prefix: string) => (k.startsWith('[') ? `${prefix}${k}` : `${prefix}.${k}`);
  return [k, join('*'), join('*.*'), join('*.*.*')];
});

/**
 * Only the type, code, message and stack of an error, scrubbed: libraries hang the failing input
 * on their errors (postgres.js its query parameters, URL parsers the whole URL with credentials).
 */
function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: scrubSecrets(String(error)) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    message: scrubSecrets(error.message),
    stack: error.stack ? scrubSecrets(error.stack) : undefined,
    ...(error.cause ? { cause: serializeError(error.cause) } : {}),
  };
}

/** A logger writing structured JSON lines to `destination`, secrets redacted by key and scrubbed from text. */
export function createLogger(destination: pino.DestinationStream = pino.destination(1), level = runtimeEnvironment().logLevel) {
  return pino(
    {
      level,
      base: { service: 'computational-governance-platform' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactPaths, censor: '[REDACTED]' },
      serializers: { err: serializeError, error: serializeError },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg)) as Parameters<typeof method>;
          method.apply(this, scrubbed);
        },
      },
    },
    destination,
  );
}

/** The logger of this process or Lambda container. */
export const logger = createLogger();

export type Logger = pino.Logger;
