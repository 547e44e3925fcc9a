import { declaredFields } from '@cgp/cue/syntax';
import { z } from 'zod';

import { governanceTool } from '../tool';
import { endpointsOf, entitySummary, summaryOf } from './policy-tools';

const PAGE = 100;
const IN_FORCE = new Set(['enabled', 'grace']);

export const getDescriptorSpecification = governanceTool({
  name: 'get_descriptor_specification',
  title: 'What a descriptor must satisfy',
  description:
    'For a resource type and an environment: the policies and metrics the deploy gate checks descriptors against (enabled or in grace, active, at deployment), ' +
    'each with its CUE script (or the rule an LLM judges) and the descriptor fields it declares, and every field any of them declares. Read it before writing a descriptor.',
  inputSchema: { resourceType: z.string().min(1), environment: z.string().min(1) },
  outputSchema: {
    policies: z.array(
      entitySummary.extend({
        cueScript: z.string().nullable(),
        llmRule: z.string().nullable(),
        fields: z.array(z.object({ path: z.string(), constraint: z.enum(['required', 'optional', 'regular']) })),
      }),
    ),
    fields: z
      .array(z.object({ path: z.string(), constraint: z.enum(['required', 'optional', 'regular']), policies: z.array(z.string()) }))
      .describe('Every field declared, with the ids of the policies that declare it (CUE only: read from the scripts, not evaluated)'),
  },
  readOnly: true,
  async run({ resourceType, environment }, { api }) {
    const inForce = await Promise.all(
      (['policy', 'metric'] as const).map(async (kind) => {
        const endpoints = endpointsOf(kind);
        const newest = [];
        for (let offset = 0; ; offset += PAGE) {
          const { body } = await api.call(endpoints.list, { query: { resourceType, trigger: 'active', limit: PAGE, offset } });
          newest.push(...body.data);
          if (body.data.length < PAGE) break;
        }
        // The list gives each policy's newest version: one in force may be older (v1 enabled, v2 a draft).
        const versions = await Promise.all(
          newest.map(async (entity) => {
            if (IN_FORCE.has(entity.status)) return entity;
            const { body } = await api.call(endpoints.listVersionsOf, { params: { id: entity.id } });
            return body.data.filter((version) => IN_FORCE.has(version.status)).at(-1);
          }),
        );
        return versions
          .filter((entity) => entity !== undefined)
          .filter((entity) => entity.timing === 'deployment' && (entity.environment === null || entity.environment === environment))
          .map((entity) => ({
            ...summaryOf(kind, entity),
            cueScript: entity.cueScript,
            llmRule: entity.llmRule,
            fields: entity.engine === 'cue' && entity.cueScript ? declaredFields(entity.cueScript) : [],
          }));
      }),
    );
    const policies = inForce.flat();
    const fields = new Map<string, { path: string; constraint: 'required' | 'optional' | 'regular'; policies: string[] }>();
    const STRENGTH = { optional: 0, regular: 1, required: 2 };
    for (const policy of policies)
      for (const field of policy.fields) {
        const known = fields.get(field.path);
        if (!known) fields.set(field.path, { ...field, policies: [policy.id] });
        else {
          known.policies.push(policy.id);
          if (STRENGTH[field.constraint] > STRENGTH[known.constraint]) known.constraint = field.constraint;
        }
      }
    return { policies, fields: [...fields.values()] };
  },
});
