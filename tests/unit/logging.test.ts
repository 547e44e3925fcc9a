import { Writable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { createLogger } from '#lib/logging/logger';
import { scrubSecrets } from '#lib/logging/scrub';

import { present } from '../support/present';

/** One JSON line of the log; `err` is the logged error, when there is one. */
type LogLine = Record<string, unknown> & { err?: { message: string } };

function capture() {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: createLogger(stream, 'info'), lines };
}

describe('logs', () => {
  it('are JSON lines with level, time and message', () => {
    const { logger, lines } = capture();
    logger.info({ requestId: 'r1' }, 'hello');
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'hello', requestId: 'r1', service: 'computational-governance-platform' });
    expect(typeof lines[0].time).toBe('string');
  });

  it('redact secrets by key at any usual depth', () => {
    const { logger, lines } = capture();
    logger.info({ password: 'p1', headers: { authorization: 'Bearer abcdefghijkl' }, config: { llm: { api_key: 'sk-123' } }, 'http-secret': 'h' }, 'x');
    const text = JSON.stringify(lines[0]);
    for (const secret of ['p1', 'abcdefghijkl', 'sk-123', '"h"']) expect(text).not.toContain(secret);
    expect(lines[0].password).toBe('[REDACTED]');
  });

  it('redact the secrets of the settings and their environment variables', () => {
    const { logger, lines } = capture();
    const settings = {
      platformServices: { httpSecret: 'hs-1', auth: { backendSecrets: ['bs-1'] } },
      assistant: { encryptionKey: 'ek-1', previousEncryptionKeys: ['pk-1'] },
      databaseUrlFromEnvironment: 'postgresql://db/x?password=pw-1',
    };
    const raw = { 'platform-services': { auth: { 'backend-secrets': ['bs-2'] } }, assistant: { 'encryption-key': 'ek-2', 'previous-encryption-keys': 'pk-2' } };
    const environment = {
      AUTH_BACKEND_SECRETS: 'bs-3',
      PLATFORM_HTTP_SECRET: 'hs-3',
      DATABASE_URL: 'postgresql://db/y',
      AUTH_BACKEND_SECRETS_SSM: '/cgp/prod/backend-secrets',
    };
    logger.info({ settings, raw, environment }, 'x');
    const text = JSON.stringify(lines[0]);
    for (const secret of ['hs-1', 'bs-1', 'ek-1', 'pk-1', 'pw-1', 'bs-2', 'ek-2', 'pk-2', 'bs-3', 'hs-3', 'postgresql://db/y'])
      expect(text, secret).not.toContain(secret);
    // The name of a parameter is no secret.
    expect(text).toContain('/cgp/prod/backend-secrets');
  });

  it('scrub secrets out of error messages, stacks and message text', () => {
    const { logger, lines } = capture();
    logger.error({ err: new Error('connect to postgresql://gov:s3cr3t@db:5432/x failed; password=hunter2') }, 'api-key: k-999 rejected');
    const text = JSON.stringify(lines[0]);
    for (const secret of ['s3cr3t', 'hunter2', 'k-999']) expect(text).not.toContain(secret);
    expect(present(lines[0].err, 'the logged error').message).toContain('postgresql://gov:[REDACTED]@db:5432/x');
  });

  it('log only the type, code, message and stack of an error, not the input libraries hang on it', () => {
    const { logger, lines } = capture();
    const error = Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL', input: 'postgresql://gov:s3cr#t@db/x', parameters: ['secret-param'] });
    logger.error({ err: error }, 'failed');
    expect(lines[0].err).toEqual({ type: 'TypeError', code: 'ERR_INVALID_URL', message: 'Invalid URL', stack: expect.any(String) });
    expect(JSON.stringify(lines[0])).not.toContain('s3cr#t');
    expect(JSON.stringify(lines[0])).not.toContain('secret-param');
  });
});

describe('scrubSecrets', () => {
  it.each([
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.x', 'Authorization: Bearer [REDACTED]'],
    ['token="abc def"', 'token=[REDACTED]'],
    ['nothing secret here', 'nothing secret here'],
  ])('%s', (input, expected) => {
    expect(scrubSecrets(input)).toBe(expected);
  });
});
