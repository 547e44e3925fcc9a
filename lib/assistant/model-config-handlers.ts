import { fourEyesOn, requestedAnswer } from '#lib/governance/approvals/approval-service';
import { requestModelConfigChange } from '#lib/governance/approvals/settings-requests';
import { governanceHandler } from '#lib/governance/governance-handler';
import type { ModelKind } from '#lib/llm/model-config';

import { checkModelConfig, getModelConfig, saveModelConfig } from './assistant-service';
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
      // Under four-eyes the models that judge LLM policies change only when someone else approves (docs/authorization.md).
      if (fourEyesOn(ctx)) {
        await checkModelConfig(ctx, kind, body, { verify: query.verify === 'true', signal });
        return requestedAnswer(await requestModelConfigChange(ctx, kind, body, principal.subject));
      }
      const { config, created } = await saveModelConfig(ctx, kind, body, { verify: query.verify === 'true', subject: principal.subject, signal });
      return { status: created ? 201 : 200, body: config };
    }),
  };
}
