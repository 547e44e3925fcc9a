/** Which question an answer is for: a policy version and the hash of the descriptor text. */
export interface LlmAnswerKey {
  readonly entityId: string;
  readonly entityVersion: number;
  readonly descriptorHash: string;
}

/** A verdict of the LLM, the model that gave it and the configuration that asked (endpoint, deployment, model). */
export interface LlmAnswer {
  readonly model: string;
  readonly answeredBy: string;
  readonly satisfiesPolicy: boolean;
  readonly errors: string[];
  readonly suggestions: string[];
}

/** Where the LLM engine keeps its answers (llm-answer-repository.ts: PostgreSQL). */
export interface LlmAnswerStore {
  find(key: LlmAnswerKey): Promise<LlmAnswer | undefined>;
  /** Replaces the answer of the key, if any (another model answered before). */
  save(key: LlmAnswerKey, answer: LlmAnswer): Promise<void>;
}
