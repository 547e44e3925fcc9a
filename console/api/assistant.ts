import type { chatEndpoint } from '#lib/assistant/endpoints';

import { call } from './client';
import type { Answer } from './contracts';
import { routes } from './routes';

export type ChatAnswer = Answer<typeof chatEndpoint>;
export type ChatSource = ChatAnswer['sources'][number];
export type PolicyDraft = NonNullable<ChatAnswer['draft']>;

/** A question to the assistant; with the conversationId of an earlier answer, the conversation goes on. */
export const ask = (query: string, conversationId?: string, signal?: AbortSignal) => call(routes.chat, { body: { query, conversationId }, signal });
