// The assistant service: its model configurations, chat and knowledge index.
import { routedHandler } from '#lib/service/routed-handler';

import { chat } from '../assistant/chat';
import { proposeDescriptorFix } from '../assistant/descriptor-fixes';
import { getEmbedderConfig, saveEmbedderConfig } from '../assistant/embedder-config';
import { readKnowledgeIndex, refreshKnowledgeIndex } from '../assistant/knowledge-index';
import { getLlmConfig, saveLlmConfig } from '../assistant/llm-config';

export const handler = routedHandler(
  getLlmConfig,
  saveLlmConfig,
  getEmbedderConfig,
  saveEmbedderConfig,
  chat,
  refreshKnowledgeIndex,
  readKnowledgeIndex,
  proposeDescriptorFix,
);
