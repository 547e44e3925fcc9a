import { z } from 'zod';

import { type ToolContext, ToolError } from '../tool';

/** The input of a tool about one descriptor: its type and environment, and the descriptor itself or (under cgp mcp) its file. */
export const descriptorInput = {
  resourceType: z.string().min(1),
  environment: z.string().min(1),
  descriptor: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe('The descriptor: YAML or JSON text, or an object (give descriptor or path)'),
  path: z.string().min(1).optional().describe('A descriptor file on this machine (cgp mcp only; give descriptor or path)'),
  id: z.string().optional().describe('The resource id, for a type whose descriptors do not carry it'),
};

/** The descriptor given, or the file's text: exactly one of them; a file only where the server may read one. */
export async function descriptorOf(
  { descriptor, path }: { descriptor?: string | Record<string, unknown>; path?: string },
  { readFile }: ToolContext,
): Promise<string | Record<string, unknown>> {
  if ((descriptor === undefined) === (path === undefined)) throw new ToolError('give either descriptor or path');
  if (path === undefined) return descriptor as string | Record<string, unknown>;
  if (!readFile) throw new ToolError('path: this server does not read files (only `cgp mcp`, on your machine, does); give the descriptor itself');
  return readFile(path);
}
