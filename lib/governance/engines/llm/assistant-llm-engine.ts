import { storedLlm } from '#lib/assistant/assistant-service';
import { getDatabase } from '#lib/db/client';

import type { PolicyEngine } from '../engine';
import { LlmAnswerRepository } from './llm-answer-repository';
import { LlmEngine } from './llm-engine';

/** The LLM engine as deployed: the assistant's stored LLM, its answers kept in PostgreSQL. */
export async function assistantLlmEngine(): Promise<PolicyEngine> {
  return new LlmEngine(storedLlm, new LlmAnswerRepository(await getDatabase()));
}
