import { z } from 'zod';

import { proposeDescriptorFixEndpoint } from '#lib/assistant/endpoints';

import { governanceTool } from '../tool';
import { descriptorInput, descriptorOf } from './descriptor-input';

export const proposeFix = governanceTool({
  name: 'propose_fix',
  title: 'Propose a fix of a failing descriptor',
  description:
    'For a descriptor that fails what is in force for its resource type and environment: the platform’s configured LLM proposes a corrected descriptor, ' +
    'the policy engine re-checks it against every policy in force, and a proposal that still fails goes back with its errors (at most assistant.tools.fix-rounds rounds). ' +
    'Only a fix that passes is returned: a JSON Patch, a diff and the fixed text. Saves nothing: apply the fix yourself.',
  inputSchema: descriptorInput,
  outputSchema: {
    passedAlready: z.boolean().describe('The descriptor passed as it was: nothing to fix'),
    rounds: z.number().int().describe('How many proposals it took; the last one passed'),
    patch: z
      .array(z.object({ op: z.string(), path: z.string(), value: z.unknown().optional(), from: z.string().optional() }))
      .describe('RFC 6902, from the descriptor given'),
    diff: z.string().describe('A unified diff of the text'),
    descriptor: z.string().describe('The fixed descriptor, in the form it came in'),
    reportId: z.string().describe('The dry-run report of the check the fix passed'),
  },
  readOnly: true,
  async run({ resourceType, environment, descriptor, path, id }, context) {
    const given = await descriptorOf({ descriptor, path }, context);
    const { body } = await context.api.call(proposeDescriptorFixEndpoint, { body: { resourceType, environment, descriptor: given, id } });
    const { passedAlready, rounds, patch, diff, reportId } = body;
    return { passedAlready, rounds, patch, diff, descriptor: body.descriptor, reportId };
  },
});
