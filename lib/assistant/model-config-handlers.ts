import { governanceHandler } from '#lib/governance/governance-handler';
import type { ModelKind } from '#lib/llm/model-config';

import { getModelConfig, saveModelConfig } from './assistant-service';
import { getEmbedderConfigEndpoint, getLlmConfigEndpoint, saveEmbedderConfigEndpoint, saveLlmConfigEndpoint } from './endpoints';

const ENDPOINTS = {
  llm: { read: getLlmConfigEndpoint, save: saveLlmConfigEndpoint },
  embedder: { read: getEmbedderConfigEndpoint, save: saveEmbedderConfigEndpoint },
} as const;

/** GET and POST of one model configuration: the LLM's and the embedder's behave the same. */
export function modelConfigHandlers(kind: ModelKind) {
  return {
    read: governanceHandler(ENDPOINTS[kind].read, async (_request, ctx) => ({ status: 200, body: await getModelConfig(ctx, kind) })),
    save: governanceHandler(ENDPOINTS[kind].save, async ({ body, query, principal, signal }, ctx) => {
      const { config, created } = await saveModelConfig(ctx, kind, body, { verify: query.verify === 'true', subject: principal.subject, signal });
      return { status: created ? 201 : 200, body: config };
    }),
  };
}
