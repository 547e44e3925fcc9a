import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { encryptionKeys, MissingEncryptionKeyError } from '#lib/llm/encryption-key';
import { loadSettings } from '#lib/settings/index';

import { MINIMAL, writeSettingsFile } from '../support/settings-files';

const settings = (assistant = '') => loadSettings(writeSettingsFile(`${MINIMAL}\ncomputational-governance-platform.assistant { ${assistant} }`), {});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the encryption key of stored provider keys', () => {
  it('comes from assistant.encryption-key, with previous keys for rotation', async () => {
    const current = randomBytes(32).toString('base64');
    const previous = randomBytes(32).toString('base64');
    const ring = await encryptionKeys(await settings(`encryption-key = "${current}", previous-encryption-keys = "${previous}"`));
    expect(ring.current.toString('base64')).toBe(current);
    expect(ring.previous.map((key) => key.toString('base64'))).toEqual([previous]);
  });

  it('must be 32 bytes of base64', async () => {
    await expect(settings('encryption-key = "too-short"')).rejects.toThrow(/assistant\.encryption-key: expected 32 bytes in base64/);
  });

  it('stops a deployed stage that has none, saying what to set', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'cgp-prod-chat');
    const error = await encryptionKeys(await settings()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingEncryptionKeyError);
    expect((error as Error).message).toContain('ASSISTANT_ENCRYPTION_KEY');
  });

  it('is generated once for local runs and kept beside the embedded database', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'cgp-root-'));
    vi.stubEnv('LAMBDA_TASK_ROOT', root);
    const first = await encryptionKeys(await settings());
    const second = await encryptionKeys(await settings());
    const file = path.join(root, '.data', 'assistant-encryption.key');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.current.equals(second.current)).toBe(true);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first.current)).toBe(true);
  });
});
