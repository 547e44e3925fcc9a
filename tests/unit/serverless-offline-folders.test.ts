import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freePort } from '../../scripts/free-port';
import { startServerlessOffline } from '../../scripts/serverless-offline';

/**
 * A stand-in for `serverless offline` in a checkout of its own: it builds in its work folder, as
 * serverless-esbuild does, and, like a CUE job stopped in mid-run, leaves a folder in its
 * temporary folder; /health says where those are and its pid.
 */
const FAKE_SERVERLESS = `
const { mkdirSync, mkdtempSync, writeFileSync } = require('node:fs');
const { createServer } = require('node:http');
const { tmpdir } = require('node:os');
const path = require('node:path');
const port = Number(process.argv[process.argv.indexOf('--httpPort') + 1]);
const workFolder = path.resolve(process.env.CGP_ESBUILD_WORK_FOLDER);
mkdirSync(path.join(workFolder, '.build'), { recursive: true });
const job = mkdtempSync(path.join(tmpdir(), 'cgp-cue-'));
writeFileSync(path.join(job, 'policy.cue'), 'owner: string');
createServer((request, response) => response.end(JSON.stringify({ pid: process.pid, workFolder, job }))).listen(port, '127.0.0.1');
`;

interface Running {
  pid: number;
  workFolder: string;
  job: string;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('serverless offline, started by the scripts', () => {
  let checkout: string;

  beforeAll(() => {
    checkout = mkdtempSync(path.join(tmpdir(), 'cgp-fake-checkout-'));
    mkdirSync(path.join(checkout, 'node_modules', 'serverless', 'bin'), { recursive: true });
    writeFileSync(path.join(checkout, 'node_modules', 'serverless', 'bin', 'serverless.js'), FAKE_SERVERLESS);
  });
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));

  it('leaves neither its build folder nor what its functions left in the temporary folder once stopped', async () => {
    const offline = startServerlessOffline({ httpPort: await freePort(), lambdaPort: await freePort(), env: process.env, stdio: 'ignore', cwd: checkout });
    await offline.ready;
    const running = (await (await fetch(`${offline.baseUrl}/health`)).json()) as Running;
    expect(existsSync(running.workFolder) && existsSync(running.job)).toBe(true);
    await offline.stop();
    expect(alive(running.pid)).toBe(false);
    expect(existsSync(running.job)).toBe(false);
    expect(existsSync(path.join(checkout, '.esbuild-offline'))).toBe(false);
  });

  it('is ended, and its folders removed, when the process that started it exits without stopping it (Ctrl-C on a bench)', async () => {
    const script = `
      const { startServerlessOffline } = await import(${JSON.stringify(path.resolve('scripts/serverless-offline.ts'))});
      const { freePort } = await import(${JSON.stringify(path.resolve('scripts/free-port.ts'))});
      const offline = startServerlessOffline({ httpPort: await freePort(), lambdaPort: await freePort(), env: process.env, stdio: 'ignore', cwd: ${JSON.stringify(checkout)} });
      await offline.ready;
      console.log(await (await fetch(offline.baseUrl + '/health')).text());
      process.exit(130);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(130);
    const running = JSON.parse(run.stdout) as Running;
    await expect.poll(() => alive(running.pid), { timeout: 5000 }).toBe(false);
    expect(existsSync(running.job)).toBe(false);
    expect(existsSync(path.join(checkout, '.esbuild-offline'))).toBe(false);
  });
});
