import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// serverless offline's runner as patched (patches/serverless-offline+*.patch): a worker initialises
// its function once, as a Lambda container does, instead of resolving the handler's module and
// setting every environment variable again at each invocation (a cost the gate paid per call).

let folder: string;

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'cgp-offline-runner-'));
  // What the handler saw of the environment, and a change it makes to it, as code may between calls.
  writeFileSync(
    path.join(folder, 'handler.mjs'),
    `export async function handler(event) {
      const seen = process.env.CGP_RUNNER_PROBE;
      process.env.CGP_RUNNER_PROBE = 'changed by call ' + event.call;
      return { seen };
    }`,
  );
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("serverless offline's in-process runner", () => {
  it('initialises the function once: the environment is set before the first call only, and the handler keeps what it changed', async () => {
    // Not among the package's exports: by its file.
    const runnerFile = pathToFileURL(path.resolve('node_modules/serverless-offline/src/lambda/handler-runner/in-process-runner/InProcessRunner.js')).href;
    const { default: InProcessRunner } = (await import(/* @vite-ignore */ runnerFile)) as {
      default: new (options: Record<string, unknown>, env: Record<string, string>) => { run(event: unknown, context: unknown): Promise<{ seen?: string }> };
    };
    const runner = new InProcessRunner(
      { codeDir: folder, handler: 'handler.handler', servicePath: folder, timeout: 5000 },
      { CGP_RUNNER_PROBE: 'from the function' },
    );
    try {
      expect(await runner.run({ call: 1 }, {})).toEqual({ seen: 'from the function' });
      expect(await runner.run({ call: 2 }, {})).toEqual({ seen: 'changed by call 1' });
    } finally {
      delete process.env.CGP_RUNNER_PROBE;
    }
  });
});
