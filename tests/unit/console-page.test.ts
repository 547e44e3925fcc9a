import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { consolePage } from '#lib/console/console-files';
import { runtimeEnvironment } from '#lib/settings/environment';

const root = mkdtempSync(path.join(tmpdir(), 'cgp-console-page-'));
mkdirSync(path.join(root, '.console-build'));
writeFileSync(path.join(root, '.console-build', 'index.html'), '<meta name="cgp-token-link" content="%TOKEN_LINK%" />');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the console's page says what a token link does in a tab signed in already", () => {
  it('locally (npm start, serverless offline): signs in, as the link start-up prints means', async () => {
    const page = await consolePage(runtimeEnvironment({ IS_OFFLINE: 'true', AWS_LAMBDA_FUNCTION_NAME: 'getConsole', CGP_PACKAGE_ROOT: root }));
    expect(page.text).toBe('<meta name="cgp-token-link" content="sign-in" />');
  });

  it('deployed (inside AWS Lambda): asks first', async () => {
    const page = await consolePage(runtimeEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'getConsole', LAMBDA_TASK_ROOT: root }));
    expect(page.text).toBe('<meta name="cgp-token-link" content="ask" />');
  });
});
