import { z } from 'zod';

import type { GovernanceContext } from '#lib/governance/context';
import type { GatewayOptions, ToolDefinition } from '#lib/llm/llm-gateway';
import type { ModelConnection } from '#lib/llm/model-config-repository';

import type { CuePolicyDraft } from '../assistant-contracts';

/** What a tool may use besides its arguments: the chat's LLM and how to call it (with the request's signal). */
export interface ToolContext {
  /** Governance, whose data the tools read. */
  readonly governance: GovernanceContext;
  readonly llm: ModelConnection;
  readonly gateway: GatewayOptions;
  /** assistant.tools.draft-repairs */
  readonly draftRepairs: number;
}

/** What a tool answers: `result` goes to the model as JSON; a `draft` also goes into the chat answer. */
export interface ToolOutcome {
  readonly result: unknown;
  readonly draft?: CuePolicyDraft;
}

/**
 * A tool the LLM may call: a read of the platform's data through the services the API uses. Its
 * arguments are checked against `arguments` before `run` sees them.
 */
export interface AssistantTool<A = unknown> {
  readonly name: string;
  readonly description: string;
  readonly arguments: z.ZodType<A>;
  run(args: A, context: ToolContext): Promise<ToolOutcome>;
}

/** The tool as the provider is told of it: its arguments' JSON schema, as the model writes them. */
export function definitionOf(tool: AssistantTool): ToolDefinition {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(tool.arguments, { io: 'input' });
  return { name: tool.name, description: tool.description, parameters };
}
