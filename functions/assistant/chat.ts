import * as assistant from '#lib/assistant/assistant-service';
import { chatEndpoint } from '#lib/assistant/endpoints';
import { governanceHandler } from '#lib/governance/governance-handler';

export const chat = governanceHandler(chatEndpoint, async ({ body, principal, log, signal }, ctx) => ({
  status: 200,
  body: await assistant.chat(ctx, body, principal.subject, log, signal),
}));
