import { afterEach, describe, expect, it, vi } from 'vitest';

import { invoke } from '../support/invoke';
import { MINIMAL, TEST_BACKEND_SECRET, writeSettingsFile } from '../support/settings-files';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a deployed assistant without assistant.encryption-key', () => {
  it('answers 503 saying what to set (before reaching for the database, which is unreachable here)', async () => {
    vi.stubEnv(
      'CGP_CONFIG_FILE',
      // Deployed, the platform is called over https.
      writeSettingsFile(
        `${MINIMAL}\ncomputational-governance-platform.platform-services { base-url = "https://platform.test", auth.backend-secrets = ["${TEST_BACKEND_SECRET}"] }`,
      ),
    );
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'cgp-prod-llm-config-read');
    vi.stubEnv('DATABASE_URL', 'postgresql://nobody@127.0.0.1:1/none');
    const { getLlmConfig } = await import('../../functions/assistant/llm-config');
    const response = await invoke(getLlmConfig, { method: 'GET', path: '/assistant/v1/llm/config' });
    expect(response.status).toBe(503);
    expect(response.body.detail).toContain('ASSISTANT_ENCRYPTION_KEY');
  });
});
