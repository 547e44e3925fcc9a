import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** A tool's answer as the MCP tests read it: structured content, or a tool error as text. */
export type ToolAnswer = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ type: string; text?: string }> };

/** Calls a tool of an MCP session. */
export const callTool = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolAnswer;

/** The text of an answer (a tool error's message, or the JSON of structured content). */
export const textOf = (answer: ToolAnswer) => answer.content.map((part) => part.text ?? '').join('\n');
