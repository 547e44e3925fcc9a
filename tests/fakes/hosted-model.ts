import { createHash } from 'node:crypto';

import { type FakeAnswer, FakeServer, type RecordedRequest } from './fake-server';

export const completion = (content = 'Hello from the fake model', model = 'gpt-4o-2024-08-06') => ({
  status: 200,
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  },
});

/** Dimension of the fake's vectors. */
const EMBEDDING_DIMENSION = 64;

/** Words the fake treats as one meaning, so that a test can ask with other words than a policy's. */
const SYNONYMS: Record<string, string> = {
  steward: 'owner',
  stewards: 'owner',
  owners: 'owner',
  responsible: 'owner',
  accountable: 'owner',
  encrypted: 'encryption',
  encrypt: 'encryption',
  cipher: 'encryption',
};

/**
 * Hashed word counts, normalised: lower-cased words (synonyms folded into one), each counted in
 * the bucket its hash picks. Texts sharing words (or synonyms) are close; the same text always
 * gets the same vector.
 */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSION).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const meaning = SYNONYMS[word] ?? word;
    vector[createHash('sha256').update(meaning).digest().readUInt32BE(0) % EMBEDDING_DIMENSION] += 1;
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

const embeddings = (request: RecordedRequest<Record<string, unknown>>) => {
  const input = request.body?.input;
  const inputs = Array.isArray(input) ? input.map(String) : [String(input)];
  return {
    status: 200,
    body: {
      object: 'list',
      model: String(request.body?.model ?? 'text-embedding-3-small'),
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    },
  };
};

export const providerError = (status: number, message: string, headers?: Record<string, string>) => ({
  status,
  body: { error: { code: String(status), message } },
  headers,
});

/** The verdicts a structured-output request gets, by the marker `[fake:<mode>]` its user message holds (e.g. in a policy's llmRule). */
const SCRIPTED_VERDICTS: Record<string, FakeAnswer> = {
  ok: completion(JSON.stringify({ satisfiesPolicy: true, errors: [], suggestions: [] })),
  'not-ok': completion(JSON.stringify({ satisfiesPolicy: false, errors: ['owner is missing'], suggestions: ['add an owner field naming the team'] })),
  malformed: completion(JSON.stringify({ satisfiesPolicy: 'maybe', errors: [] })),
  'not-json': completion('I think it is fine.'),
  '500': providerError(500, 'the model crashed'),
  hang: { hang: true },
};

/** Chat completions asking for structured output (response_format json_schema): the scripted verdict its marker names. */
function structuredAnswer(request: RecordedRequest<Record<string, unknown>>): FakeAnswer | undefined {
  if ((request.body?.response_format as { type?: string } | undefined)?.type !== 'json_schema') return undefined;
  const messages = (request.body.messages ?? []) as { role: string; content: string }[];
  const mode = /\[fake:([a-z0-9-]+)\]/.exec(messages.find((message) => message.role === 'user')?.content ?? '')?.[1];
  return (mode && SCRIPTED_VERDICTS[mode]) || SCRIPTED_VERDICTS.ok;
}

/**
 * A hosted-model service (Azure-OpenAI style): chat completions or embeddings unless told otherwise;
 * structured-output requests get scripted verdicts (SCRIPTED_VERDICTS).
 */
export class FakeHostedModel extends FakeServer<Record<string, unknown>> {
  constructor() {
    super((request) => (request.path.endsWith('/embeddings') ? embeddings(request) : (structuredAnswer(request) ?? completion())));
  }

  /** The inputs of each embeddings call received, in order. */
  embeddingCalls(): string[][] {
    return this.requests
      .filter((request) => request.path.endsWith('/embeddings'))
      .map((request) => {
        const input = request.body?.input;
        return Array.isArray(input) ? input.map(String) : [String(input)];
      });
  }
}
