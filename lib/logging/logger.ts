import pino from 'pino';
import { runtimeEnvironment } from '../settings/environment';

const SECRET_KEYS = [
  'password', 'secret', 'token', 'jwt', 'apiKey', 'api_key', 'api-key', 'authorization', 'cookie',
  'httpSecret', 'http-secret', 'backendSecrets', 'accessToken', 'access_token', 'connectionString', 'databaseUrl',
];

// pino's wildcards cover one level each; secrets may sit a few levels deep in logged objects.
const redactPaths = SECRET_KEYS.flatMap((key) => {
  const k = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const join = (prefix: string) => (k.startsWith('[') ? `${prefix}${k}` : `${prefix}.${k}`);
  return [k, join('*'), join('*.*'), join('*.*.*')];
});

/** Structured JSON logs, one line per event, secrets redacted. */
export const logger = pino({
  level: runtimeEnvironment().logLevel,
  base: { service: 'computational-governance-platform' },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  redact: { paths: redactPaths, censor: '[REDACTED]' },
});

export type Logger = pino.Logger;
