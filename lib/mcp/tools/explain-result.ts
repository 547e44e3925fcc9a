import { z } from 'zod';

import { listResultsEndpoint } from '#lib/governance/evaluation/endpoints';
import { OUTCOMES } from '#lib/governance/evaluation/outcome';
import { listExceptionsEndpoint } from '#lib/governance/exceptions/endpoints';

import { governanceTool, ToolError } from '../tool';
import { endpointsOf } from './policy-tools';

/** Where a CUE error points into the policy's script (`policy.cue:3:12`), by line. */
const POLICY_POSITION = /policy\.cue:(\d+):\d+/g;

/** The lines of the script the errors point at, each once, in order, with their number. */
function linesInvolved(script: string | null, errors: readonly string[]): Array<{ line: number; text: string }> {
  if (!script) return [];
  const lines = script.split('\n');
  const numbers = new Set(errors.flatMap((error) => [...error.matchAll(POLICY_POSITION)].map((match) => Number(match[1]))));
  return [...numbers]
    .filter((line) => line >= 1 && line <= lines.length)
    .sort((a, b) => a - b)
    .map((line) => ({ line, text: lines[line - 1] }));
}

export const explainResult = governanceTool({
  name: 'explain_result',
  title: 'Explain a stored result',
  description:
    'The newest stored verdict of a policy (or metric) on a resource, in each environment or the one given: why it failed (its errors), the lines of the CUE script ' +
    'the errors point at, the script itself, and the active exception that waives it, if any.',
  inputSchema: {
    policyId: z.uuid().describe('The policy’s (or metric’s) id'),
    resourceId: z.string().min(1).max(512),
    environment: z.string().optional().describe('Only the verdict of this environment'),
  },
  outputSchema: {
    results: z.array(
      z.object({
        environment: z.string(),
        outcome: z.enum(OUTCOMES),
        policyVersion: z.number().int(),
        errors: z.array(z.string()),
        cueLines: z.array(z.object({ line: z.number().int(), text: z.string() })).describe('The lines of the CUE script its errors point at'),
        evaluatedAt: z.string(),
        waivedBy: z
          .object({ exceptionId: z.string(), reason: z.string(), expiresAt: z.string(), requestedBy: z.string(), approvedBy: z.string().nullable() })
          .nullable()
          .describe('The active exception of this policy, resource and environment; null when none'),
      }),
    ),
    policy: z
      .object({ id: z.string(), kind: z.enum(['policy', 'metric']), name: z.string(), cueScript: z.string().nullable(), llmRule: z.string().nullable() })
      .nullable(),
  },
  readOnly: true,
  async run({ policyId, resourceId, environment }, { api }) {
    const { body: page } = await api.call(listResultsEndpoint, { query: { policyId, resourceId, environment, latest: 'true', limit: 10 } });
    if (page.data.length === 0) throw new ToolError(`no result of ${policyId} for ${resourceId}${environment ? ` in ${environment}` : ''} is stored`);
    const kind = page.data[0].governanceEntityType;
    const endpoints = endpointsOf(kind);
    const versions = [...new Set(page.data.map((result) => result.governanceEntityVersion))];
    const scripts = new Map(
      await Promise.all(
        versions.map(async (version) => {
          const { body } = await api.call(endpoints.get, { params: { id: policyId }, query: { version } }).catch((error: unknown) => {
            // A deleted policy keeps its results: they are explained without its text.
            if ((error as { status?: number }).status === 404) return { body: undefined };
            throw error;
          });
          return [version, body] as const;
        }),
      ),
    );
    const { body: exceptions } = await api.call(listExceptionsEndpoint, { query: { policyId, resourceId, active: 'true', limit: 100 } });
    const results = page.data.map((result) => {
      const script = scripts.get(result.governanceEntityVersion)?.cueScript ?? null;
      const waiver = exceptions.data.find((exception) => exception.environment === null || exception.environment === result.resource.environment);
      return {
        environment: result.resource.environment,
        outcome: result.outcome,
        policyVersion: result.governanceEntityVersion,
        errors: result.result.errors,
        cueLines: linesInvolved(script, result.result.errors),
        evaluatedAt: result.creationTime,
        waivedBy: waiver
          ? { exceptionId: waiver.id, reason: waiver.reason, expiresAt: waiver.expiresAt, requestedBy: waiver.requestedBy, approvedBy: waiver.approvedBy }
          : null,
      };
    });
    const newest = scripts.get(Math.max(...versions));
    return {
      results,
      policy: newest ? { id: newest.id, kind, name: newest.name, cueScript: newest.cueScript, llmRule: newest.llmRule } : null,
    };
  },
});
