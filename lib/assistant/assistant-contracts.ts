import { z } from 'zod';

import { SOURCE_TYPES } from './knowledge/knowledge-chunk';

export const verifyQuery = z.object({
  verify: z.enum(['true', 'false'], { error: 'verify must be "true" or "false"' }).optional(),
});

/** Hard limit of the contract; `assistant.max-query-length` (default 8000) is usually lower. */
const QUERY_HARD_LIMIT = 100_000;

export const chatRequest = z
  .strictObject({
    query: z
      .string({ error: 'query is required (a string)' })
      .max(QUERY_HARD_LIMIT, `query is longer than ${QUERY_HARD_LIMIT} characters`)
      .refine((query) => query.trim().length > 0, 'query must not be empty'),
    conversationId: z.uuid({ error: 'conversationId must be the id of a conversation (a UUID)' }).optional(),
  })
  .meta({ id: 'ChatRequest' });
export type ChatRequest = z.output<typeof chatRequest>;

const chatSource = z.object({ type: z.enum(SOURCE_TYPES), id: z.string(), version: z.number().int().optional(), title: z.string() }).meta({ id: 'ChatSource' });

/** A CUE policy drafted by the draft_cue_policy tool: compiled and tried, never saved. */
const cuePolicyDraft = z
  .object({
    cueScript: z.string(),
    compiles: z.boolean().meta({ description: "Whether the platform's CUE engine compiles it (as a policy's cueScript is checked on create)" }),
    compileError: z.string().optional().meta({ description: "The CUE engine's error, when it does not compile after the repairs" }),
    test: z
      .object({ satisfiesPolicy: z.boolean(), errors: z.array(z.string()) })
      .optional()
      .meta({ description: 'Its verdict on the sample descriptor, when one was given and it compiles (requireConcrete: true)' }),
    repairs: z.number().int().meta({ description: 'How many times a draft that did not compile went back to the model with the error' }),
  })
  .meta({ id: 'CuePolicyDraft' });
export type CuePolicyDraft = z.output<typeof cuePolicyDraft>;

export const chatAnswer = z
  .object({
    answer: z.string(),
    model: z.string(),
    usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }).partial().passthrough(),
    /** What the answer was grounded on: the sources of the chunks given to the model, each once. */
    sources: z.array(chatSource),
    /** Send it back with the next question to continue the conversation. */
    conversationId: z.uuid(),
    draft: cuePolicyDraft.optional().meta({
      description: 'The CUE policy the model drafted with draft_cue_policy (the last one); nothing is saved: create the policy through the policies API',
    }),
  })
  .meta({ id: 'ChatAnswer' });
export type GroundedAnswer = z.output<typeof chatAnswer>;

/** Body of POST /assistant/v1/descriptor-fixes. */
export const descriptorFixRequest = z
  .strictObject({
    resourceType: z.string({ error: 'resourceType is required' }).min(1, 'resourceType must not be empty').max(128),
    environment: z.string({ error: 'environment is required' }).min(1, 'environment must not be empty').max(128),
    descriptor: z.union(
      [z.string().min(1, 'descriptor must not be empty').max(1_048_576, 'descriptor is longer than 1 MiB'), z.record(z.string(), z.unknown())],
      {
        error: 'descriptor is required: YAML or JSON text, or an object',
      },
    ),
    id: z.string().min(1).max(512).optional().meta({ description: 'The resource id, for a type whose descriptors do not carry it' }),
  })
  .meta({ id: 'DescriptorFixRequest' });
export type DescriptorFixRequest = z.output<typeof descriptorFixRequest>;

const jsonPatchOperation = z
  .object({ op: z.string(), path: z.string(), value: z.unknown().optional(), from: z.string().optional() })
  .meta({ id: 'JsonPatchOperation', description: 'An RFC 6902 operation' });

export const descriptorFix = z
  .object({
    passedAlready: z.boolean().meta({ description: 'The descriptor passed as it was: nothing to fix (rounds 0, an empty patch)' }),
    rounds: z.number().int().meta({ description: 'How many proposals the LLM made; the last one passed' }),
    descriptor: z.string().meta({ description: 'The fixed descriptor, as text of the form it came in (YAML keeps its comments where nothing changed)' }),
    patch: z.array(jsonPatchOperation).meta({ description: 'From the descriptor given to the fixed one (RFC 6902)' }),
    diff: z.string().meta({ description: 'A unified diff of the text' }),
    reportId: z.string().meta({ description: 'The dry-run report of the check the fixed descriptor passed' }),
    checks: z
      .array(z.object({ reportId: z.string(), passed: z.boolean() }))
      .meta({ description: 'Every check made: the descriptor given, then each proposal, each a dry-run report' }),
  })
  .meta({ id: 'DescriptorFix' });
export type DescriptorFix = z.output<typeof descriptorFix>;
