import { z } from 'zod';

import { carriesCredentials, carriesQueryOrFragment, isAbsoluteHttpUrl } from '#lib/settings/values';

import { SOURCE_TYPES } from './knowledge/knowledge-chunk';

export type ModelKind = 'llm' | 'embedder';

// eslint-disable-next-line no-control-regex -- control characters are what this pattern refuses
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const required = (what: string, max: number) =>
  z
    .string({ error: `${what} is required (a string)` })
    .trim()
    // One message per field: stop at the first rule broken.
    .min(1, { error: `${what} must not be empty`, abort: true })
    .max(max, { error: `${what} is longer than ${max} characters`, abort: true })
    .refine((value) => !CONTROL_CHARACTERS.test(value), { error: `${what} must not contain control characters`, abort: true });

// RFC 9110 token: the characters an HTTP header name may have.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const endpointUrl = z
  .string({ error: 'endpoint is required (an absolute http(s) URL)' })
  .trim()
  .refine(
    (value) => isAbsoluteHttpUrl(value) && !carriesCredentials(value) && !carriesQueryOrFragment(value),
    'endpoint must be an absolute http(s) URL without credentials, query or fragment, such as "https://my-resource.openai.azure.com"',
  )
  // The SDK appends /openai/...; a trailing slash would double it.
  .transform((value) => value.replace(/\/+$/, ''));

/** Body of POST /assistant/v1/{llm|embedder}/config: a whole configuration, replacing the stored one. */
export const modelConfigInput = z
  .strictObject({
    provider: z.literal('hosted_llm', { error: 'provider must be "hosted_llm"' }),
    // It travels in an HTTP header: visible ASCII only.
    api_key: z
      .string({ error: 'api_key is required (a string)' })
      .trim()
      .min(1, { error: 'api_key must not be empty', abort: true })
      .max(4096, { error: 'api_key is longer than 4096 characters', abort: true })
      .regex(/^[\x21-\x7e]+$/, 'api_key may hold only visible ASCII characters (no spaces or control characters)'),
    endpoint: endpointUrl,
    api_version: required('api_version', 64),
    model: required('model', 256),
    deployment: required('deployment', 256).regex(/^[A-Za-z0-9._-]+$/, 'deployment may hold only letters, digits, ".", "_" and "-"'),
    custom_header: z
      .string({ error: 'custom_header must be a string' })
      .trim()
      .max(256, 'custom_header is longer than 256 characters')
      .regex(HEADER_NAME, 'custom_header must be a valid HTTP header name, such as "Ocp-Apim-Subscription-Key"')
      .optional(),
  })
  .meta({ id: 'ModelConfigurationInput' });

export type ModelConfigInput = z.output<typeof modelConfigInput>;

/** A stored configuration as readers see it: the API key masked. */
export const modelConfigRepresentation = z
  .object({
    provider: z.literal('hosted_llm'),
    api_key: z.string().meta({ description: 'masked: at most the last 4 characters', example: '****abcd' }),
    endpoint: z.string(),
    api_version: z.string(),
    model: z.string(),
    deployment: z.string(),
    custom_header: z.string().nullable(),
    created_at: z.string(),
    created_by: z.string(),
    updated_at: z.string(),
    updated_by: z.string(),
  })
  .meta({ id: 'ModelConfiguration' });

export type ModelConfigRepresentation = z.output<typeof modelConfigRepresentation>;

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
