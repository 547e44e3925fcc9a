import { setTimeout as sleep } from 'node:timers/promises';

import { z } from 'zod';

import { getImpactReportEndpoint } from '#lib/governance/impact/endpoints';

import { governanceTool } from '../tool';
import { endpointsOf } from './policy-tools';

const POLL_MS = 500;
/** How long the tool waits for the report in all, its start included: well under the /mcp function's time (its message budget). */
const WAIT_MS = 18_000;
/** How long the start may hold the call for the report to end (Prefer: wait). */
const START_WAIT_SECONDS = 10;

const counts = z.object({
  newlyFailing: z.number().int(),
  newlyPassing: z.number().int(),
  stillFailing: z.number().int(),
  stillPassing: z.number().int(),
  notEvaluated: z.number().int(),
});

export const checkImpact = governanceTool({
  name: 'check_impact',
  title: 'Weigh a policy version before it goes live',
  description:
    'Runs an impact report of a policy (or metric) version, a draft included, against every resource of its perimeter and compares each verdict with the live version’s: ' +
    'how many resources it would newly fail or newly pass, in all, by environment and by owner. The run goes through the queue; the tool waits for it up to 20 s, ' +
    'else answers its id and status: call it again with impactReportId to read it.',
  inputSchema: {
    policyId: z.uuid(),
    kind: z.enum(['policy', 'metric']).default('policy'),
    version: z.number().int().min(1).optional().describe('The version to weigh (default: the newest, a draft included)'),
    environments: z.array(z.string().min(1)).min(1).optional().describe('Only these environments (default: every one of the policy)'),
    impactReportId: z.uuid().optional().describe('Read this impact report instead of starting one'),
  },
  outputSchema: {
    impactReportId: z.string(),
    status: z.enum(['pending', 'running', 'completed', 'failed']),
    candidateVersion: z.number().int(),
    baselineVersion: z.number().int().nullable().describe('The live version compared with; null when none is live'),
    counts: counts.nullable().describe('Null until the run completed'),
    byEnvironment: z.array(counts.extend({ environment: z.string() })),
    byOwner: z.array(counts.extend({ owner: z.string().nullable() })),
    error: z.string().nullable(),
  },
  readOnly: false,
  async run({ policyId, kind, version, environments, impactReportId }, { api }) {
    const deadline = Date.now() + WAIT_MS;
    let id = impactReportId;
    if (id === undefined) {
      const { body } = await api.call(endpointsOf(kind).impact, {
        params: { id: policyId },
        body: { version, environments },
        headers: { prefer: `wait=${START_WAIT_SECONDS}` },
      });
      id = 'impactReportId' in body ? body.impactReportId : body.id;
    }
    for (;;) {
      const { body: report } = await api.call(getImpactReportEndpoint, { params: { id } });
      if (report.status === 'completed' || report.status === 'failed' || Date.now() > deadline)
        return {
          impactReportId: report.id,
          status: report.status,
          candidateVersion: report.candidateVersion,
          baselineVersion: report.baselineVersion,
          counts: report.counts,
          byEnvironment: report.byEnvironment,
          byOwner: report.byOwner,
          error: report.error,
        };
      await sleep(POLL_MS);
    }
  },
});
