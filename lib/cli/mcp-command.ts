import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

import { governanceMcpServer } from '#lib/mcp/governance-mcp-server';

import { type ApiAccess, ApiClient } from './api-client';

/**
 * `cgp mcp`: the platform's MCP server over stdio, for an agent on the developer's machine. Its
 * tools call the platform as the token's caller (--token or CGP_TOKEN, as every command), and
 * check_policies may read a descriptor file by its path (relative to the folder the agent started
 * it in). Runs until the agent closes standard input.
 */
export async function serveMcp(access: ApiAccess, version: string): Promise<void> {
  const api = new ApiClient(access);
  const server = governanceMcpServer({ api, readFile: (file) => readFile(path.resolve(file), 'utf8') }, version);
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport());
  await ended;
  await server.close();
}
