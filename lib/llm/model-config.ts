import { z } from 'zod';

import { carriesCredentials, carriesQueryOrFragment, isAbsoluteHttpUrl } from '#lib/settings/values';

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
