import { modelConfigHandlers } from '#lib/assistant/model-config-handlers';

export const { read: getLlmConfig, save: saveLlmConfig } = modelConfigHandlers('llm');
