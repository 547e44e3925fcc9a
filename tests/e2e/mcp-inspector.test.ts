import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { folderWith } from '../support/cgp';
import { publishedCuePolicy } from '../support/governance-api';
import { technicalToken } from '../support/tokens';

// A real MCP client against `cgp mcp` (issue 47): the MCP Inspector's command-line mode, as
// docs/mcp.md runs it. The inspector's current major (2.x) needs Node 22.19 or later; this project
// runs on Node 20, so the test runs the 1.x command line (@modelcontextprotocol/inspector-cli, what
// `inspector --cli` runs in 1.x; patched: patches/, it looked for its package.json from the working
// folder).

const baseUrl = inject('baseUrl');
const TYPE = 'mcp-inspector-dataproduct';
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js');

let folder: string;
let policy: EntityRepresentation;
let env: NodeJS.ProcessEnv;

/** The inspector's command line against `cgp mcp`: its JSON answer, parsed. */
function inspect(args: readonly string[]): Promise<{ code: number | null; answer: Record<string, unknown> | undefined; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR, '--cli', process.execPath, path.resolve('bin/cgp.mjs'), 'mcp', ...args], { env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, answer: stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : undefined }));
  });
}

beforeAll(async () => {
  policy = await publishedCuePolicy(TYPE, 'Inspector: owners have an e-mail', 'owner: email: =~"@"\n');
  folder = folderWith({ 'bad.yaml': 'id: urn:dp:inspected\nowner:\n  email: nobody\n' });
  const { LOG_LEVEL: _quiet, ...rest } = process.env;
  env = { ...rest, CGP_SERVER: baseUrl, CGP_TOKEN: await technicalToken({ sub: 'mcp-inspector', roles: ['evaluator'] }) };
});

afterAll(() => rm(folder, { recursive: true, force: true }));

describe('the MCP Inspector (command line) against cgp mcp', () => {
  it('lists the tools, with their schemas', async () => {
    const { code, answer, stderr } = await inspect(['--method', 'tools/list']);
    expect(code, stderr).toBe(0);
    const tools = answer?.tools as Array<{ name: string; inputSchema: { type: string }; outputSchema?: { type: string } }>;
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['check_policies', 'propose_fix', 'get_descriptor_specification', 'explain_result']));
    expect(tools).toHaveLength(10);
    for (const tool of tools) expect([tool.inputSchema.type, tool.outputSchema?.type]).toEqual(['object', 'object']);
  });

  it('checks a descriptor file: not passed, the error at its path and line', async () => {
    const { code, answer, stderr } = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'check_policies',
      '--tool-arg',
      `resourceType=${TYPE}`,
      '--tool-arg',
      'environment=development',
      '--tool-arg',
      `path=${path.join(folder, 'bad.yaml')}`,
    ]);
    expect(code, stderr).toBe(0);
    expect(answer).toMatchObject({
      structuredContent: { passed: false, results: [{ policyId: policy.id, outcome: 'error', errors: [{ path: 'owner.email', line: 3 }] }] },
    });
  });
});
