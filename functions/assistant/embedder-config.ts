import { modelConfigHandlers } from '../../lib/assistant/model-config-handlers';

export const { read, save } = modelConfigHandlers('embedder');
