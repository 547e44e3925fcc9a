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
