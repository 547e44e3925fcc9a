import { modelConfigHandlers } from '#lib/assistant/model-config-handlers';

export const { read: getEmbedderConfig, save: saveEmbedderConfig } = modelConfigHandlers('embedder');
