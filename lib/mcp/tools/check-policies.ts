import { z } from 'zod';

import { checkDescriptor } from '#lib/api/descriptor-check';
import { locatedErrors } from '#lib/api/located-errors';
import { cueErrorPath } from '#lib/governance/evaluation/descriptor-locator';
import { OUTCOMES } from '#lib/governance/evaluation/outcome';
import { SEVERITIES } from '#lib/governance/policies/entity';

import { governanceTool } from '../tool';
import { descriptorInput, descriptorOf } from './descriptor-input';

/** How long a check may take before it is answered as not ended, in seconds (Evaluate holds the call up to 25 s). */
const CHECK_TIMEOUT_SECONDS = 60;

export const checkPolicies = governanceTool({
  name: 'check_policies',
  title: 'Check a descriptor against the policies in force',
  description:
    'Evaluates a descriptor (YAML or JSON) against every policy and metric in force for its resource type and environment, as the deploy gate does, ' +
    'and answers whether it passes and, per policy, its outcome and its errors located at the descriptor’s paths. A dry run: never stored as the resource’s state.',
  inputSchema: descriptorInput,
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
  async run({ resourceType, environment, descriptor, path, id }, context) {
    const given = await descriptorOf({ descriptor, path }, context);
    const text = typeof given === 'string' ? given : JSON.stringify(given, null, 2);
    const run = await checkDescriptor(context.api, {
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
