import type { z } from 'zod';

import type { EndpointCaller } from '#lib/api/endpoint-caller';

/** What a tool works with: the API as the session's caller, and what this server may do besides. */
export interface ToolContext {
  readonly api: EndpointCaller;
  /** Reads a local file (a descriptor named by its path): only the stdio server (`cgp mcp`), on the developer's machine, may. */
  readonly readFile?: (path: string) => Promise<string>;
}

/** A failure the agent should read as is (a wrong argument, a file the server may not read). */
export class ToolError extends Error {
  override name = 'ToolError';
}

/**
 * One MCP tool: its input and output schemas (the SDK lists them and checks both), and what it does
 * through the API, which decides, as for any client, whether the session's caller may.
 */
export interface GovernanceTool<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: I;
  readonly outputSchema: O;
  /** Changes nothing (a read, or a check kept apart from the resources' state). */
  readonly readOnly: boolean;
  run(input: z.output<z.ZodObject<I>>, context: ToolContext): Promise<z.input<z.ZodObject<O>>>;
}

/** Declares a tool, its types inferred from its schemas. */
export const governanceTool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: GovernanceTool<I, O>) => tool;
