import { ConflictError, InvalidInput, NotFoundError, UnprocessableInput, UpstreamError } from '#lib/errors/domain-errors';
import type { GovernanceContext } from '#lib/governance/context';
import { embed, ProviderError, verifyEmbedder, verifyLlm } from '#lib/llm/llm-gateway';
import type { ModelConfigInput, ModelConfigRepresentation, ModelKind } from '#lib/llm/model-config';
import { type ModelConfigRepository, type ModelConnection, toConnection } from '#lib/llm/model-config-repository';
import { connectionOf, LABEL, type StoredModels, storedModels } from '#lib/llm/stored-models';
import { type Logger, logger } from '#lib/logging/logger';
import { callableUrlProblem } from '#lib/platform/http-client';

import type { ChatRequest, GroundedAnswer } from './assistant-contracts';
import { ConversationRepository } from './conversation-repository';
import { groundedMessages, sourcesOf } from './grounded-prompt';
import type { KnowledgeIndexState } from './knowledge/knowledge-api';
import { SOURCE_TYPES } from './knowledge/knowledge-chunk';
import { KnowledgeChunkRepository } from './knowledge/knowledge-chunk-repository';
import { type RefreshCounts, refreshKnowledgeIndex as refreshChunks, type RefreshLimits, type RefreshOutcome } from './knowledge/knowledge-index-refresh';
import { hasChunksOf, retrieveChunks } from './knowledge/knowledge-retrieval';
import { chatWithTools } from './tools/chat-with-tools';

interface AssistantContext extends StoredModels {
  governance: GovernanceContext;
  maxQueryLength: number;
  index: RefreshLimits;
  topK: number;
  maxTurns: number;
  tools: { maxRounds: number; draftRepairs: number };
}

/**
 * The stored models and the assistant's settings. The assistant works on governance's context
 * (its settings, pool, and the data its tools read), which lib/assistant/composition.ts gives.
 */
async function assistant(ctx: GovernanceContext): Promise<AssistantContext> {
  const { settings } = ctx;
  return {
    ...(await storedModels(ctx)),
    governance: ctx,
    maxQueryLength: settings.assistant.maxQueryLength,
    index: settings.assistant.index,
    topK: settings.assistant.retrieval.topK,
    maxTurns: settings.assistant.conversation.maxTurns,
    tools: settings.assistant.tools,
  };
}

export async function getModelConfig(ctx: GovernanceContext, kind: ModelKind): Promise<ModelConfigRepresentation> {
  const config = await (await assistant(ctx)).repository.find(kind);
  if (!config) throw new NotFoundError(`No ${LABEL[kind]} configuration is stored yet: POST /assistant/v1/${kind}/config to create it`);
  return config;
}

/** Stores a configuration; with `verify`, only after one minimal provider call succeeded. */
export async function saveModelConfig(
  ctx: GovernanceContext,
  kind: ModelKind,
  input: ModelConfigInput,
  { verify, subject, signal }: { verify: boolean; subject: string; signal?: AbortSignal },
) {
  const { repository } = await checkModelConfig(ctx, kind, input, { verify, signal });
  return repository.save(kind, input, subject);
}

/**
 * What storing a configuration checks first, also when it becomes a four-eyes request: the endpoint
 * may be called; with `verify`, one minimal provider call succeeds (422 otherwise).
 */
export async function checkModelConfig(
  ctx: GovernanceContext,
  kind: ModelKind,
  input: ModelConfigInput,
  { verify, signal }: { verify: boolean; signal?: AbortSignal },
) {
  const models = await assistant(ctx);
  const { gateway } = models;
  const problem = callableUrlProblem(ctx.settings, input.endpoint);
  if (problem) throw new InvalidInput([{ path: 'endpoint', message: `endpoint ${problem}` }]);
  if (verify) {
    try {
      await (kind === 'llm' ? verifyLlm : verifyEmbedder)(toConnection(input), { ...gateway, signal });
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      // No HTTP answer reads the same whether the port is closed, filtered, slow or not HTTP: verify is no port scanner.
      const noAnswer = error.kind === 'unreachable' || error.kind === 'timeout';
      const reason = noAnswer ? `Could not get an HTTP answer from ${new URL(input.endpoint).host}` : error.message;
      throw new UnprocessableInput(`The ${LABEL[kind]} configuration was not stored: the provider check failed. ${reason}`, {
        ...(error.providerStatus === undefined ? {} : { upstreamStatus: error.providerStatus }),
        reason: noAnswer ? 'unreachable' : error.kind,
      });
    }
  }
  return models;
}

/** Both connections: the assistant works only with both configurations (seed); 409 names what is missing. */
async function bothConnections(repository: ModelConfigRepository, doing: string) {
  const [llm, embedder] = await Promise.all([connectionOf(repository, 'llm'), connectionOf(repository, 'embedder')]);
  const missing = [...(llm ? [] : ['llm']), ...(embedder ? [] : ['embedder'])];
  if (!llm || !embedder) {
    const names = missing.map((kind) => `${LABEL[kind as ModelKind]} configuration`).join(' and ');
    throw new ConflictError(`The assistant needs an LLM and an embedder configuration before it can ${doing}; missing: ${names}`, { missing });
  }
  return { llm, embedder };
}

const upstreamFailure = (error: unknown) => {
  if (!(error instanceof ProviderError)) return error;
  return new UpstreamError(error.message, { timeout: error.kind === 'timeout', upstreamStatus: error.providerStatus });
};

/**
 * Answers a question from the knowledge index: the chunks closest to it (hybrid retrieval) go to
 * the LLM in delimited blocks, after the conversation's earlier turns; the LLM may call the tools
 * (reads of the platform's data, a CUE draft) for a bounded number of rounds, each call logged on
 * `log`. Both configurations must exist (seed). The turn is stored only once the model answered.
 */
export async function chat(ctx: GovernanceContext, request: ChatRequest, subject: string, log: Logger, signal?: AbortSignal): Promise<GroundedAnswer> {
  const { repository, gateway, maxQueryLength, topK, maxTurns, tools, governance } = await assistant(ctx);
  const { query, conversationId } = request;
  if (query.length > maxQueryLength)
    throw new InvalidInput([{ path: 'query', message: `query is longer than ${maxQueryLength} characters (assistant.max-query-length)` }]);
  const { llm, embedder } = await bothConnections(repository, 'chat');
  const { database } = ctx;
  const conversations = new ConversationRepository(database, maxTurns);
  const history = conversationId === undefined ? [] : await conversations.turns(conversationId, subject);
  if (!history) throw new NotFoundError(`conversationId ${conversationId} names no conversation of yours: leave conversationId out to begin one`);
  try {
    // An index never built (or of another embedder model) has nothing to retrieve: no embedding call then.
    const chunks = (await hasChunksOf(database, embedder.model))
      ? await retrieveChunks(database, { text: query, vector: (await embed(embedder, [query], { ...gateway, signal }))[0] }, embedder.model, topK)
      : [];
    const { draft, ...answer } = await chatWithTools(
      llm,
      groundedMessages(query, chunks, history),
      { governance, llm, gateway: { ...gateway, signal }, draftRepairs: tools.draftRepairs },
      { maxRounds: tools.maxRounds, log },
    );
    const id = await conversations.append(conversationId, subject, { query, answer: answer.answer });
    return { ...answer, sources: sourcesOf(chunks), conversationId: id, ...(draft ? { draft } : {}) };
  } catch (error) {
    throw upstreamFailure(error);
  }
}

/**
 * Reads every source, embeds what changed since the last refresh, and removes what is gone. Past
 * `assistant.index.max-chunks`, 409 naming the setting, having indexed what fitted.
 */
export async function refreshKnowledgeIndex(ctx: GovernanceContext, signal?: AbortSignal): Promise<RefreshCounts> {
  const { repository, gateway, index } = await assistant(ctx);
  const { embedder } = await bothConnections(repository, 'build its knowledge index');
  let outcome: RefreshOutcome;
  try {
    outcome = await refreshChunks(ctx.database, embedder, { ...gateway, signal }, index, 'all');
  } catch (error) {
    throw upstreamFailure(error);
  }
  const { embedded, unchanged, removed, refused } = outcome;
  if (refused.sources > 0) {
    throw new ConflictError(
      `The knowledge index holds at most ${index.maxChunks} chunks (assistant.index.max-chunks): ${refused.sources} sources ` +
        `(${refused.chunks} chunks) were not indexed, the rest was. Raise the setting or remove sources; questions are answered from what is indexed`,
      { setting: 'assistant.index.max-chunks', maxChunks: index.maxChunks, refused, embedded, unchanged, removed },
    );
  }
  return { embedded, unchanged, removed };
}

/**
 * The scheduled refresher: reads and embeds the sources marked stale, and only those; every source
 * when the index was never built or the embedder model changed. Without both configurations, or
 * when the provider fails, it does nothing now (logged) and the marks wait for the next run.
 */
export async function refreshIndexWhenStale(ctx: GovernanceContext): Promise<RefreshOutcome | { skipped: string }> {
  const { repository, gateway, index } = await assistant(ctx);
  const { database } = ctx;
  const chunks = new KnowledgeChunkRepository(database);
  let embedder: ModelConnection;
  try {
    embedder = (await bothConnections(repository, 'build its knowledge index')).embedder;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    return { skipped: error.message };
  }
  const [{ count }, last] = await Promise.all([chunks.staleMarks(), chunks.lastRefresh()]);
  if (count === 0 && last?.embedderModel === embedder.model) return { skipped: 'up to date' };
  try {
    return await refreshChunks(database, embedder, gateway, index, 'stale');
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    logger.warn({ reason: error.message }, 'the knowledge index could not be refreshed; the next run retries');
    return { skipped: error.message };
  }
}

/** The index as it stands: chunks per source type, the embedder model, the last refresh. */
export async function readKnowledgeIndex(ctx: GovernanceContext): Promise<KnowledgeIndexState> {
  const { repository } = await assistant(ctx);
  await bothConnections(repository, 'build its knowledge index');
  const chunks = new KnowledgeChunkRepository(ctx.database);
  const [counts, last, stale] = await Promise.all([chunks.countsBySourceType(), chunks.lastRefresh(), chunks.staleMarks()]);
  const sourceTypes = Object.fromEntries(SOURCE_TYPES.map((type) => [type, counts[type] ?? 0])) as KnowledgeIndexState['sourceTypes'];
  return {
    chunks: Object.values(sourceTypes).reduce((sum, n) => sum + n, 0),
    sourceTypes,
    embedderModel: last?.embedderModel ?? null,
    refreshedAt: last?.refreshedAt.toISOString() ?? null,
    staleSources: stale.count,
  };
}
