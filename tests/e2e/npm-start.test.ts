import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/free-port';
import { testSettingsFile } from '../support/settings-files';

describe('npm start', () => {
  it('serves /health, and on SIGTERM stops serverless offline first and leaves no build folder behind', { timeout: 180_000 }, async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      env: { ...process.env, HTTP_PORT: String(port), DATABASE_URL: inject('databaseUrl'), CGP_CONFIG_FILE: testSettingsFile('computational-governance-platform.database.schema = "npm_start"') },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status, { timeout: 150_000, interval: 500 })
        .toBe(200);
      expect(existsSync(`.esbuild-offline/${port}`)).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(existsSync(`.esbuild-offline/${port}`)).toBe(false);
  });
});
