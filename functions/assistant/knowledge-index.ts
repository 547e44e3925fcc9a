import * as assistant from '#lib/assistant/assistant-service';
import { readKnowledgeIndexEndpoint, refreshKnowledgeIndexEndpoint } from '#lib/assistant/endpoints';
import { governanceHandler } from '#lib/governance/governance-handler';

export const refreshKnowledgeIndex = governanceHandler(refreshKnowledgeIndexEndpoint, async ({ signal }, ctx) => ({
  status: 200,
  body: await assistant.refreshKnowledgeIndex(ctx, signal),
}));
export const readKnowledgeIndex = governanceHandler(readKnowledgeIndexEndpoint, async (_request, ctx) => ({
  status: 200,
  body: await assistant.readKnowledgeIndex(ctx),
}));
