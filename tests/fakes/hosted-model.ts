import { createHash } from 'node:crypto';

import { FakeServer, type RecordedRequest } from './fake-server';

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

/** A hosted-model service (Azure-OpenAI style): chat completions or embeddings unless told otherwise. */
export class FakeHostedModel extends FakeServer<Record<string, unknown>> {
  constructor() {
    super((request) => (request.path.endsWith('/embeddings') ? embeddings(request) : completion()));
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
