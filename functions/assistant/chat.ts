import { answerChat } from '../../lib/assistant/assistant-service';
import { chatEndpoint } from '../../lib/assistant/endpoints';
import { httpHandler } from '../../lib/http/handler';

export const handler = httpHandler(chatEndpoint, async ({ body, principal, log, signal }) => ({
  status: 200,
  body: await answerChat(body, principal.subject, log, signal),
}));
