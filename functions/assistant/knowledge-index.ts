import * as assistant from '#lib/assistant/assistant-service';
import { readIndexEndpoint, refreshIndexEndpoint } from '#lib/assistant/endpoints';
import { httpHandler } from '#lib/http/handler';

export const refreshKnowledgeIndex = httpHandler(refreshIndexEndpoint, async ({ signal }) => ({
  status: 200,
  body: await assistant.refreshKnowledgeIndex(signal),
}));
export const readKnowledgeIndex = httpHandler(readIndexEndpoint, async () => ({ status: 200, body: await assistant.readKnowledgeIndex() }));
