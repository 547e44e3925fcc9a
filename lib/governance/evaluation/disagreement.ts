import { z } from 'zod';

import type { DisagreementVerdict } from '../../../drizzle/schema/json-columns';

const verdict = z.object({ satisfiesPolicy: z.boolean(), isError: z.boolean(), errors: z.array(z.string()) }) satisfies z.ZodType<DisagreementVerdict>;

/** A pair the native and reference CUE evaluators judged differently (cue-config.evaluator = shadow). */
export const cueDisagreement = z
  .object({
    id: z.number().int(),
    policyId: z.string(),
    policyVersion: z.number().int(),
    kind: z.enum(['policy', 'metric']),
    resourceId: z.string(),
    environment: z.string(),
    reportId: z.string(),
    native: verdict.meta({ description: 'What the native evaluator answered' }),
    wasm: verdict.meta({ description: 'What the reference evaluator (CUE v0.4) answered (the verdict that was recorded)' }),
    createdAt: z.string(),
  })
  .meta({ id: 'CueDisagreement' });

export type CueDisagreement = z.output<typeof cueDisagreement>;

export const disagreementFilters = z.object({
  policyId: z.uuid({ error: 'policyId must be a UUID' }).optional().meta({ description: 'Only the disagreements of this policy or metric' }),
});

export type DisagreementFilters = z.output<typeof disagreementFilters>;
