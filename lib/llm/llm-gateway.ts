import { APIError, AzureOpenAI } from 'openai';
import pRetry from 'p-retry';

import { logger } from '#lib/logging/logger';
import { scrubSecrets } from '#lib/logging/scrub';
import { MetricUnit, recordMetric } from '#lib/observability/metrics';
import { OutboundConnectTimeoutError, outboundErrorOf, outboundFetch, OutboundTimeoutError, type OutboundTimeouts } from '#lib/platform/http-client';
import { retryAfterMs } from '#lib/platform/retry-after';

import type { ModelConnection } from './model-config-repository';

/**
 * The provider gave no usable answer: it `rejected` the call with an HTTP status, did not answer in
 * time (`timeout`), could not be reached (`unreachable`), or answered something unusable (`malformed`).
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind: 'rejected' | 'timeout' | 'unreachable' | 'malformed',
    readonly providerStatus?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
}

export interface GatewayOptions {
  readonly timeouts: OutboundTimeouts;
  /** Retries after the first attempt, on 429, 5xx and connection errors only. */
  readonly retries: number;
  /** Stops the call and its retries (the function is about to run out of time). */
  readonly signal?: AbortSignal;
}

/** Longest Retry-After we wait for; a provider asking for more gets its failure reported instead. */
const MAX_RETRY_AFTER_MS = 30_000;

/**
 * A client for one call. The SDK replaces transport errors by its own (a timeout loses its cause),
 * so the fetch it is given keeps the typed error of the last transport failure for us.
 */
function client(connection: ModelConnection, options: GatewayOptions, transportFailures: Error[]): AzureOpenAI {
  const fetch = outboundFetch(options.timeouts);
  return new AzureOpenAI({
    endpoint: connection.endpoint,
    apiVersion: connection.apiVersion,
    deployment: connection.deployment,
    apiKey: connection.apiKey,
    // Behind an API-management gateway the key travels in the header it names, and only there.
    defaultHeaders: connection.customHeader ? { 'api-key': null, [connection.customHeader]: connection.apiKey } : undefined,
    // Retries are ours (below); timeouts are the outbound client's (0 = none).
    maxRetries: 0,
    timeout: 2_147_483_647,
    // A redirect is never followed: the key (in `api-key` or the custom header, which undici does not strip
    // on a cross-origin redirect) goes only to the configured endpoint. The 3xx comes back as the answer.
    fetch: async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      try {
        return await fetch(input, { ...init, redirect: 'manual' });
      } catch (error) {
        transportFailures.push(error as Error);
        throw error;
      }
    },
  });
}

function providerError(error: unknown, connection: ModelConnection, options: GatewayOptions, transportFailure?: Error): ProviderError {
  const host = new URL(connection.endpoint).host;
  // Whatever a provider or library says goes into answers and logs: never with the key in it.
  const clean = (text: string) => scrubSecrets(text.split(connection.apiKey).join('[REDACTED]'));
  if (error instanceof APIError && error.status !== undefined && error.status >= 300 && error.status < 400)
    return new ProviderError(
      `The model provider at ${host} answered ${error.status}, a redirect: not followed, the key goes only to the configured endpoint (${host})`,
      'rejected',
      error.status,
      { cause: error },
    );
  if (error instanceof APIError && error.status !== undefined) {
    const reason = (error.error as { message?: string } | undefined)?.message ?? error.message;
    return new ProviderError(`The model provider at ${host} answered ${error.status}: ${clean(reason ?? 'no reason given')}`, 'rejected', error.status, {
      cause: error,
    });
  }
  const transport = outboundErrorOf(transportFailure ?? error, host, options.timeouts);
  if (transport)
    return new ProviderError(transport.message, transport instanceof OutboundTimeoutError ? 'timeout' : 'unreachable', undefined, { cause: transport });
  return new ProviderError(
    `The model provider at ${host} gave an unusable answer: ${clean((error as Error)?.message ?? String(error))}`,
    'malformed',
    undefined,
    { cause: error },
  );
}

/** Not a connect timeout: it reads as unreachable, but another try would multiply the wait. */
const retryable = (error: ProviderError) =>
  (error.kind === 'unreachable' && !(error.cause instanceof OutboundConnectTimeoutError)) ||
  (error.kind === 'rejected' && (error.providerStatus === 429 || (error.providerStatus ?? 0) >= 500));

/**
 * A signal for one attempt that follows the caller's. The SDK never removes the listener it adds
 * to the signal it is given: on the request's own signal they would pile up over a chat's many
 * calls (tool rounds, drafts); on this one they go with the attempt.
 */
function attemptSignal(signal: AbortSignal | undefined): { signal?: AbortSignal; release: () => void } {
  if (!signal) return { release: () => {} };
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', abort) };
}

async function call<T>(
  connection: ModelConnection,
  options: GatewayOptions,
  request: (client: AzureOpenAI, signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  const transportFailures: Error[] = [];
  const api = client(connection, options, transportFailures);
  return pRetry(
    async () => {
      transportFailures.length = 0;
      const attempt = attemptSignal(options.signal);
      try {
        return await request(api, attempt.signal);
      } catch (error) {
        throw providerError(error, connection, options, transportFailures.at(-1));
      } finally {
        attempt.release();
      }
    },
    {
      retries: options.retries,
      minTimeout: 200,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) => {
        if (!(error instanceof ProviderError) || !retryable(error)) return false;
        const wait = retryAfterMs((error.cause as APIError | undefined)?.headers);
        return wait === undefined || wait <= MAX_RETRY_AFTER_MS;
      },
      signal: options.signal,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (!(error instanceof ProviderError) || !retryable(error) || retriesLeft === 0) return;
        const wait = retryAfterMs((error.cause as APIError | undefined)?.headers);
        logger.warn({ attempt: attemptNumber, providerStatus: error.providerStatus, retryAfterMs: wait }, 'model provider call failed; retrying');
        if (wait !== undefined && wait <= MAX_RETRY_AFTER_MS) await new Promise((resolve) => setTimeout(resolve, wait));
      },
    },
  );
}

export interface ChatAnswer {
  answer: string;
  model: string;
  usage: Record<string, unknown>;
}

/** A call of a tool the model asked for: `arguments` is the JSON text it wrote, unchecked. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A function the model may call (chat completions `tools`): `parameters` is its arguments' JSON schema. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/** What the model answered with tools offered: a text, or the tools it wants called first. */
export type ChatReply = (ChatAnswer & { toolCalls?: undefined }) | { toolCalls: ToolCall[]; model: string; usage: Record<string, unknown> };

/** A provider call that answered, and the tokens it says it used (docs/operations.md: ModelCalls, ModelTokens). */
function recordUsage(model: 'llm' | 'embedder', usage: { total_tokens?: number } | undefined): void {
  recordMetric('ModelCalls', MetricUnit.Count, 1, { model });
  if (typeof usage?.total_tokens === 'number') recordMetric('ModelTokens', MetricUnit.Count, usage.total_tokens, { model });
}

/**
 * Sends a conversation (instructions, earlier turns, the question) to the configured chat deployment.
 * With `tools`, the model may answer with tool calls instead of a text; `toolChoice: 'none'`
 * still shows it the tools (a conversation holding tool calls needs them) but asks for a text.
 */
export async function chat(
  connection: ModelConnection,
  messages: readonly ChatMessage[],
  options: GatewayOptions,
  tools?: { definitions: readonly ToolDefinition[]; toolChoice: 'auto' | 'none' },
): Promise<ChatReply> {
  const offered = tools?.definitions.length
    ? {
        tools: tools.definitions.map((tool) => ({ type: 'function' as const, function: { ...tool } })),
        tool_choice: tools.toolChoice,
      }
    : {};
  const completion = await call(connection, options, (api, signal) =>
    api.chat.completions.create({ model: connection.model, messages: [...messages], ...offered }, { signal }),
  );
  const message = completion.choices?.[0]?.message;
  const model = completion.model ?? connection.model;
  const usage = { ...completion.usage };
  recordUsage('llm', completion.usage);
  const toolCalls = (message?.tool_calls ?? []).filter((toolCall): toolCall is ToolCall => toolCall?.type === 'function');
  if (tools?.toolChoice === 'auto' && toolCalls.length > 0) return { toolCalls, model, usage };
  if (typeof message?.content !== 'string') throw new ProviderError('The model provider answered without a message', 'malformed');
  return { answer: message.content, model, usage };
}

/** A question whose answer must be JSON of `schema` (the provider's structured output). */
export interface StructuredQuestion {
  readonly system: string;
  readonly user: string;
  /** The schema's name for the provider ([a-zA-Z0-9_-]). */
  readonly schemaName: string;
  readonly schema: Record<string, unknown>;
}

/**
 * Asks for a JSON answer of a schema (response_format json_schema, strict), at temperature 0 so the
 * same question gets the same answer as far as the model allows. The JSON is the caller's to
 * validate; an answer that is no JSON (or a refusal) is `malformed`.
 */
export async function structuredChat(connection: ModelConnection, question: StructuredQuestion, options: GatewayOptions): Promise<unknown> {
  const completion = await call(connection, options, (api, signal) =>
    api.chat.completions.create(
      {
        model: connection.model,
        temperature: 0,
        messages: [
          { role: 'system', content: question.system },
          { role: 'user', content: question.user },
        ],
        response_format: { type: 'json_schema', json_schema: { name: question.schemaName, strict: true, schema: question.schema } },
      },
      { signal },
    ),
  );
  recordUsage('llm', completion.usage);
  const message = completion.choices?.[0]?.message;
  if (typeof message?.content !== 'string')
    throw new ProviderError(
      `The model provider answered without JSON${message?.refusal ? `: it refused (${message.refusal.slice(0, 200)})` : ''}`,
      'malformed',
    );
  try {
    return JSON.parse(message.content);
  } catch {
    throw new ProviderError(`The model provider answered something that is not JSON: ${message.content.slice(0, 200)}`, 'malformed');
  }
}

/**
 * The smallest call that proves an LLM configuration works: a one-token chat. Reasoning models
 * refuse `max_tokens` and want `max_completion_tokens`, which older API versions do not know.
 */
export async function verifyLlm(connection: ModelConnection, options: GatewayOptions): Promise<void> {
  const ping = (limit: { max_tokens: number } | { max_completion_tokens: number }) =>
    call(connection, options, (api, signal) =>
      api.chat.completions.create({ model: connection.model, messages: [{ role: 'user', content: 'ping' }], ...limit }, { signal }),
    );
  try {
    await ping({ max_tokens: 1 });
  } catch (error) {
    if (!(error instanceof ProviderError && error.providerStatus === 400 && error.message.includes('max_tokens'))) throw error;
    await ping({ max_completion_tokens: 1 });
  }
}

/** One embeddings call: a vector per input, in the order of `inputs` (the caller batches). */
export async function embed(connection: ModelConnection, inputs: readonly string[], options: GatewayOptions): Promise<number[][]> {
  const answer = await call(connection, options, (api, signal) =>
    api.embeddings.create({ model: connection.model, input: [...inputs], encoding_format: 'float' }, { signal }),
  );
  recordUsage('embedder', answer.usage);
  const vectors: number[][] = [];
  for (const item of answer.data ?? []) if (Number.isInteger(item?.index)) vectors[item.index] = item.embedding;
  const usable = (vector: unknown) => Array.isArray(vector) && vector.length > 0 && vector.every((value) => Number.isFinite(value));
  if (vectors.length !== inputs.length || !inputs.every((_, index) => usable(vectors[index]))) {
    throw new ProviderError(`The model provider answered ${answer.data?.length ?? 0} embeddings for ${inputs.length} inputs`, 'malformed');
  }
  return vectors;
}

/** The smallest call that proves an embedder configuration works: one embedding of one input. */
export async function verifyEmbedder(connection: ModelConnection, options: GatewayOptions): Promise<void> {
  await call(connection, options, (api, signal) => api.embeddings.create({ model: connection.model, input: ['ping'], encoding_format: 'float' }, { signal }));
}
