import { z } from 'zod';

import { type GatewayOptions, ProviderError, structuredChat } from '#lib/llm/llm-gateway';
import type { ModelConnection } from '#lib/llm/model-config-repository';
import type { LlmAccess } from '#lib/llm/stored-models';
import { logger } from '#lib/logging/logger';

import { type EngineEntity, engineFailure, type EngineResource, type EngineResult, type PolicyEngine } from '../engine';
import { judgeEachPair } from '../engine-pairs';
import type { LlmAnswer, LlmAnswerStore } from './llm-answer-store';
import { judgementQuestion, sha256 } from './llm-prompt';

const verdict = z.strictObject({ satisfiesPolicy: z.boolean(), errors: z.array(z.string()), suggestions: z.array(z.string()) });

/** How many LLM calls one evaluation keeps in flight. */
const CONCURRENCY = 4;

const resultOf = (answer: LlmAnswer): EngineResult => ({
  satisfiesPolicy: answer.satisfiesPolicy,
  isError: false,
  errors: answer.errors,
  details: { suggestions: answer.suggestions, model: answer.model },
});

/**
 * Who answers: the endpoint, deployment and model of the configuration. A kept answer is served only
 * to the same three, so a replaced configuration (another endpoint under the same model name, say)
 * never serves the verdicts of the one before.
 */
const answererOf = (connection: ModelConnection) => sha256(JSON.stringify([connection.endpoint, connection.deployment, connection.model]));

/**
 * The LLM engine: the policy's `llmRule` and the descriptor go to the LLM its connection provider
 * gives (as deployed, the stored LLM of lib/llm: stored-llm-engine.ts), which answers
 * `{ satisfiesPolicy, errors, suggestions }`. An answer is kept per (policy version, descriptor)
 * and served again to the same endpoint, deployment and model. No LLM, a provider failure, a timeout or an answer of another shape is an engine
 * failure of the pair, never a pass.
 */
export class LlmEngine implements PolicyEngine {
  constructor(
    private readonly access: LlmAccess,
    private readonly answers: LlmAnswerStore,
  ) {}

  async evaluate(entities: readonly EngineEntity[], resources: readonly EngineResource[], signal?: AbortSignal): Promise<EngineResult[][]> {
    const llm = await this.access();
    if ('unavailable' in llm) return entities.map(() => resources.map(() => engineFailure(`The LLM engine cannot judge: ${llm.unavailable}`)));
    const options = { ...llm.gateway, signal };
    return judgeEachPair(entities, resources, CONCURRENCY, (entity, resource) => this.judge(llm.connection, options, entity, resource));
  }

  private async judge(connection: ModelConnection, options: GatewayOptions, entity: EngineEntity, resource: EngineResource): Promise<EngineResult> {
    if (!entity.llmRule) return engineFailure('The policy has no llmRule');
    const key = { entityId: entity.id, entityVersion: entity.version, descriptorHash: sha256(resource.content) };
    const answeredBy = answererOf(connection);
    const known = await this.answers.find(key);
    if (known?.answeredBy === answeredBy) return resultOf(known);
    let answer: unknown;
    try {
      answer = await structuredChat(connection, judgementQuestion(entity.llmRule, resource), options);
    } catch (error) {
      if (error instanceof ProviderError) return engineFailure(`The LLM could not judge the descriptor: ${error.message}`);
      throw error;
    }
    const parsed = verdict.safeParse(answer);
    if (!parsed.success)
      return engineFailure(
        `The LLM answered ${JSON.stringify(answer).slice(0, 200)}, not { "satisfiesPolicy": boolean, "errors": [string], "suggestions": [string] }`,
      );
    const judged = { model: connection.model, answeredBy, ...parsed.data };
    // The verdict stands without its copy: the next evaluation asks again.
    await this.answers.save(key, judged).catch((error) => logger.error({ err: error, entityId: entity.id }, 'an answer of the LLM engine could not be kept'));
    return resultOf(judged);
  }
}
