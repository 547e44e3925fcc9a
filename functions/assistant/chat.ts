import * as assistant from '#lib/assistant/assistant-service';
import { chatEndpoint } from '#lib/assistant/endpoints';
import { httpHandler } from '#lib/http/handler';

export const chat = httpHandler(chatEndpoint, async ({ body, principal, log, signal }) => ({
  status: 200,
  body: await assistant.chat(body, principal.subject, log, signal),
}));
