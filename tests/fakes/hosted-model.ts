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

/** A chat completion asking for tool calls: each with its arguments (JSON text as given, or a value to write as JSON). */
export const toolCalls = (...calls: { name: string; arguments: unknown; id?: string }[]) => ({
  status: 200,
  body: {
    id: 'chatcmpl-tools',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-2024-08-06',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call, index) => ({
            id: call.id ?? `call_${index + 1}`,
            type: 'function',
            function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
          })),
        },
        finish_reason: 'tool_calls',
      },
    ],
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

type Message = { role: string; content: string | null; tool_call_id?: string };

/** Chat completions asking for structured output (response_format json_schema): the scripted verdict its marker names. */
function structuredAnswer(request: RecordedRequest<Record<string, unknown>>): FakeAnswer | undefined {
  if ((request.body?.response_format as { type?: string } | undefined)?.type !== 'json_schema') return undefined;
  const messages = (request.body.messages ?? []) as Message[];
  const mode = /\[fake:([a-z0-9-]+)\]/.exec(messages.find((message) => message.role === 'user')?.content ?? '')?.[1];
  return (mode && SCRIPTED_VERDICTS[mode]) || SCRIPTED_VERDICTS.ok;
}

/** The name of the structured-output schema a request asks for, if any. */
const schemaNameOf = (request: RecordedRequest<Record<string, unknown>>) =>
  (request.body?.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;

/** A text quoting the results of the tool calls the conversation ends with, as a model answering from them would. */
function quotingToolResults(request: RecordedRequest<Record<string, unknown>>): FakeAnswer | undefined {
  const messages = (request.body?.messages ?? []) as Message[];
  const results = messages.slice(messages.findLastIndex((message) => message.role !== 'tool') + 1);
  return results.length > 0 ? completion(`From the tools: ${results.map((message) => message.content).join('\n')}`) : undefined;
}

/**
 * A hosted-model service (Azure-OpenAI style): embeddings, and chat completions. Structured-output
 * requests get scripted verdicts (SCRIPTED_VERDICTS), or for a CUE draft (schema cue_policy_draft)
 * the next script of `scriptDrafts`, for a descriptor fix (schema descriptor_fix) the next descriptor of `scriptFixes`. A chat turn gets the next answer of `scriptChat` (e.g.
 * `toolCalls(...)`) unless it asks for a text (tool_choice none); otherwise a text quoting the tool results the conversation ends with, or
 * a plain text.
 */
export class FakeHostedModel extends FakeServer<Record<string, unknown>> {
  private readonly chatScript: FakeAnswer[] = [];
  private readonly draftScript: string[] = [];
  private readonly fixScript: unknown[] = [];

  constructor() {
    super((request) => {
      if (request.path.endsWith('/embeddings')) return embeddings(request);
      if (schemaNameOf(request) === 'cue_policy_draft') return completion(JSON.stringify({ cueScript: this.draftScript.shift() ?? 'name!: string' }));
      if (schemaNameOf(request) === 'descriptor_fix') return completion(JSON.stringify({ descriptorJson: JSON.stringify(this.fixScript.shift() ?? {}) }));
      const structured = structuredAnswer(request);
      if (structured) return structured;
      // Asked for a text (tool_choice none), it answers one, as a provider does.
      const scripted = request.body?.tool_choice === 'none' ? undefined : this.chatScript.shift();
      return scripted ?? quotingToolResults(request) ?? completion();
    });
  }

  /** The body of an LLM or embedder configuration whose provider is this fake (deployment `<model>-deployment`). */
  configuration(model: string, apiKey: string): Record<string, unknown> {
    return { provider: 'hosted_llm', api_key: apiKey, endpoint: this.url, api_version: '2024-10-21', model, deployment: `${model}-deployment` };
  }

  /** The next chat turns' answers, in order (structured-output and embeddings requests take none). */
  scriptChat(...answers: FakeAnswer[]): this {
    this.chatScript.push(...answers);
    return this;
  }

  /** The CUE scripts the next draft requests get, in order. */
  scriptDrafts(...scripts: string[]): this {
    this.draftScript.push(...scripts);
    return this;
  }

  /** The descriptors the next fix requests (schema descriptor_fix) get, in order. */
  scriptFixes(...descriptors: unknown[]): this {
    this.fixScript.push(...descriptors);
    return this;
  }

  override reset(): void {
    super.reset();
    this.chatScript.length = 0;
    this.draftScript.length = 0;
    this.fixScript.length = 0;
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
