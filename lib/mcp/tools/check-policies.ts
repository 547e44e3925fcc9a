import { z } from 'zod';

import { cueErrorPath } from '#lib/governance/evaluation/descriptor-locator';
import { OUTCOMES } from '#lib/governance/evaluation/outcome';
import { SEVERITIES } from '#lib/governance/policies/entity';

import { checkDescriptor } from '../../cli/evaluate-command';
import { locatedErrors } from '../../cli/formats/located-errors';
import { governanceTool, ToolError } from '../tool';

/** How long a check may take before it is answered as not ended, in seconds (Evaluate holds the call up to 25 s). */
const CHECK_TIMEOUT_SECONDS = 60;

export const checkPolicies = governanceTool({
  name: 'check_policies',
  title: 'Check a descriptor against the policies in force',
  description:
    'Evaluates a descriptor (YAML or JSON) against every policy and metric in force for its resource type and environment, as the deploy gate does, ' +
    'and answers whether it passes and, per policy, its outcome and its errors located at the descriptor’s paths. A dry run: never stored as the resource’s state.',
  inputSchema: {
    resourceType: z.string().min(1),
    environment: z.string().min(1),
    descriptor: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .describe('The descriptor: YAML or JSON text, or an object (give descriptor or path)'),
    path: z.string().min(1).optional().describe('A descriptor file on this machine (cgp mcp only; give descriptor or path)'),
    id: z.string().optional().describe('The resource id, for a type whose descriptors do not carry it'),
  },
  outputSchema: {
    passed: z.boolean().describe('No result is an error or failed (waived and warnings pass)'),
    outcome: z.enum(OUTCOMES).describe('The worst outcome'),
    reportId: z.string().optional(),
    results: z.array(
      z.object({
        policyId: z.string(),
        policyName: z.string(),
        kind: z.enum(['policy', 'metric']),
        severity: z.enum(SEVERITIES),
        outcome: z.enum(OUTCOMES),
        errors: z.array(
          z.object({
            message: z.string(),
            path: z.string().optional().describe('The descriptor path the error names'),
            line: z.number().int(),
            column: z.number().int(),
          }),
        ),
      }),
    ),
  },
  readOnly: true,
  async run({ resourceType, environment, descriptor, path, id }, { api, readFile }) {
    if ((descriptor === undefined) === (path === undefined)) throw new ToolError('give either descriptor or path');
    let text: string;
    if (path !== undefined) {
      if (!readFile) throw new ToolError('path: this server does not read files (only `cgp mcp`, on your machine, does); give the descriptor itself');
      text = await readFile(path);
    } else text = typeof descriptor === 'string' ? descriptor : JSON.stringify(descriptor, null, 2);
    const run = await checkDescriptor(api, {
      type: resourceType,
      env: environment,
      text,
      file: path ?? 'descriptor',
      id,
      timeout: CHECK_TIMEOUT_SECONDS,
      wait: 25,
      dryRun: true,
    });
    return {
      passed: run.passed,
      outcome: run.outcome,
      ...(run.reportId ? { reportId: run.reportId } : {}),
      results: run.results.map((result) => ({
        policyId: result.policy.ref,
        policyName: result.policy.name,
        kind: result.policy.kind,
        severity: result.policy.severity,
        outcome: result.outcome,
        errors: (result.errors.length > 0 ? locatedErrors(result) : []).map(({ message, position }) => ({
          message,
          ...(cueErrorPath(message) ? { path: cueErrorPath(message) } : {}),
          line: position.line,
          column: position.column,
        })),
      })),
    };
  },
});
