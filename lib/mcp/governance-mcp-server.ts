import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

import { type GovernanceTool, type ToolContext, ToolError } from './tool';
import { checkImpact } from './tools/check-impact';
import { checkPolicies } from './tools/check-policies';
import { getDescriptorSpecification } from './tools/descriptor-specification';
import { explainResult } from './tools/explain-result';
import { listFailingResources } from './tools/failing-resources';
import { getPolicy, listPolicies } from './tools/policy-tools';
import { proposeFix } from './tools/propose-fix';
import { getApprovalStatus, requestException } from './tools/review-tools';

/** Every tool, in the order agents are told of them (docs/mcp.md). */
const GOVERNANCE_TOOLS: readonly GovernanceTool[] = [
  listPolicies,
  getPolicy,
  getDescriptorSpecification,
  checkPolicies,
  explainResult,
  proposeFix,
  checkImpact,
  listFailingResources,
  requestException,
  getApprovalStatus,
] as unknown as readonly GovernanceTool[];

const INSTRUCTIONS =
  'The computational governance platform: policies as code (mostly CUE) that every resource (data products, pipelines...) is checked against at deploy time. ' +
  'Before proposing or deploying a descriptor, run check_policies on it; read a failing policy with get_policy; a waiver is asked for with request_exception and decided by someone else (four-eyes).';

/** An error as the agent reads it: the platform's problem (ApiError), or what was wrong with the call; never a stack. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The platform's MCP server: the tools and the policies as resources, every one working through
 * the API as the session's caller (`context.api`), so each is allowed exactly when the operation it
 * performs is. Served over stdio by `cgp mcp` and over Streamable HTTP at /mcp.
 */
export function governanceMcpServer(context: ToolContext, version: string): McpServer {
  const server = new McpServer({ name: 'computational-governance-platform', version }, { instructions: INSTRUCTIONS });
  for (const tool of GOVERNANCE_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false },
      },
      async (input: Record<string, unknown>) => {
        try {
          const output = (await tool.run(input as never, context)) as Record<string, unknown>;
          return { structuredContent: output, content: [{ type: 'text' as const, text: JSON.stringify(output, null, 2) }] };
        } catch (error) {
          return { isError: true, content: [{ type: 'text' as const, text: `${tool.name}: ${messageOf(error)}` }] };
        }
      },
    );
  }
  server.registerResource(
    'policy',
    new ResourceTemplate('cgp://policies/{id}', { list: undefined }),
    {
      title: 'A policy',
      description: 'A policy (its newest version): its script, status, severity, environment and versions, as get_policy answers it',
      mimeType: 'application/json',
    },
    async (uri, { id }) => {
      if (typeof id !== 'string') throw new ToolError(`${uri.href}: one policy id is expected`);
      const policy = await getPolicy.run({ id, kind: 'policy' }, context);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(policy, null, 2) }] };
    },
  );
  server.registerPrompt(
    'make_compliant',
    {
      title: 'Make this descriptor compliant',
      description: 'Checks a descriptor against what is in force, explains each failure, and proposes a fix the engine passed',
      argsSchema: {
        resourceType: z.string().describe('The resource type'),
        environment: z.string().describe('The environment it is deployed to'),
        descriptor: z.string().describe('The descriptor (YAML or JSON text), or a path to it under cgp mcp'),
      },
    },
    ({ resourceType, environment, descriptor }) => ({
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: compliantPrompt(resourceType, environment, descriptor) } }],
    }),
  );
  return server;
}

/** The steps the prompt asks of the agent, with the governance's tools. */
function compliantPrompt(resourceType: string, environment: string, descriptor: string): string {
  return [
    `Make this descriptor of a ${resourceType} compliant with what the governance platform enforces in ${environment}.`,
    `1. Run check_policies on it (resourceType ${JSON.stringify(resourceType)}, environment ${JSON.stringify(environment)}). If it passes, say so and stop.`,
    '2. For each failing policy, read it with get_policy and explain in one or two sentences what it requires and which field breaks it.',
    '3. Run propose_fix on the same descriptor. Show its diff and say what each change does. The platform has already checked that the fixed descriptor passes.',
    '4. If no fix passes, list what is left to decide by a person; if a waiver is justified, say that request_exception asks for one (a second person approves it).',
    '',
    'The descriptor:',
    descriptor,
  ].join('\n');
}
