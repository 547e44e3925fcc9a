import * as assistant from '#lib/assistant/assistant-service';
import { readKnowledgeIndexEndpoint, refreshKnowledgeIndexEndpoint } from '#lib/assistant/endpoints';
import { httpHandler } from '#lib/http/handler';

export const refreshKnowledgeIndex = httpHandler(refreshKnowledgeIndexEndpoint, async ({ signal }) => ({
  status: 200,
  body: await assistant.refreshKnowledgeIndex(signal),
}));
export const readKnowledgeIndex = httpHandler(readKnowledgeIndexEndpoint, async () => ({ status: 200, body: await assistant.readKnowledgeIndex() }));
