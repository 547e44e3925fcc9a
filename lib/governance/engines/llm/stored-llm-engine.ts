import type { ServiceContext } from '#lib/db/client';
import { storedLlm } from '#lib/llm/stored-models';

import type { PolicyEngine } from '../engine';
import { LlmAnswerRepository } from './llm-answer-repository';
import { LlmEngine } from './llm-engine';

/** The LLM engine as deployed: the stored LLM configuration is its connection, its answers kept in PostgreSQL. */
export function storedLlmEngine(ctx: ServiceContext): PolicyEngine {
  return new LlmEngine(storedLlm(ctx), new LlmAnswerRepository(ctx.database));
}
