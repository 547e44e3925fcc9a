import { FakeServer } from './fake-server';

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

const embedding = () => ({
  status: 200,
  body: {
    object: 'list',
    model: 'text-embedding-3-small',
    data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
    usage: { prompt_tokens: 1, total_tokens: 1 },
  },
});

export const providerError = (status: number, message: string, headers?: Record<string, string>) => ({
  status,
  body: { error: { code: String(status), message } },
  headers,
});

/** A hosted-model service (Azure-OpenAI style): chat completions or embeddings unless told otherwise. */
export class FakeHostedModel extends FakeServer<Record<string, unknown>> {
  constructor() {
    super((request) => (request.path.endsWith('/embeddings') ? embedding() : completion()));
  }
}
