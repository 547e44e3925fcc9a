import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, inject, it } from 'vitest';

import { authorized } from '../support/tokens';

const baseUrl = inject('baseUrl');

/** `serverless package`, as `npm run package` runs it in a second terminal. */
function packageService(target: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/serverless/bin/serverless.js', 'package', '--package', target], {
      env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
      stdio: 'ignore',
    });
    child.once('exit', resolve);
  });
}

describe('a package run beside the running server', () => {
  it('leaves the functions serverless offline loads where they were', { timeout: 300_000 }, async () => {
    const target = await mkdtemp(path.join(tmpdir(), 'cgp-package-beside-'));
    try {
      expect(await packageService(target)).toBe(0);
    } finally {
      await rm(target, { recursive: true, force: true });
    }
    // Functions load on their first call: the metric versions are read by no other test (the metrics list by few), so they
    // load after the package run. Other files may have stored metrics: the list's content is not this test's concern.
    const metrics = await fetch(`${baseUrl}/v1/computational-governance/metrics?limit=5`, { headers: await authorized() });
    expect(metrics.status).toBe(200);
    expect(await metrics.json()).toMatchObject({ data: expect.any(Array), meta: { pagination: { limit: 5, offset: 0 } } });
    const missing = await fetch(`${baseUrl}/v1/computational-governance/metrics/00000000-0000-4000-8000-000000000000/versions`, {
      headers: await authorized(),
    });
    expect(missing.status).toBe(404);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
  });
});
