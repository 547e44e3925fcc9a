import type { chatEndpoint } from '#lib/assistant/endpoints';

import { post } from './client';
import type { Answer } from './contracts';

export type ChatAnswer = Answer<typeof chatEndpoint>;
export type ChatSource = ChatAnswer['sources'][number];
export type PolicyDraft = NonNullable<ChatAnswer['draft']>;

/** A question to the assistant; with the conversationId of an earlier answer, the conversation goes on. */
export const ask = (query: string, conversationId?: string, signal?: AbortSignal) =>
  post<ChatAnswer>('/assistant/v1/llm/chat', { query, conversationId }, { signal });
