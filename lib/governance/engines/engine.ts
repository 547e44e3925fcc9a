/**
 * What the evaluation code asks of an engine, whichever it is (CUE in process or in WebAssembly, a
 * remote HTTP engine, the assistant's LLM). Engines know nothing of reports or statuses; the LLM engine
 * reaches the database only through the ports it is given (its stored LLM, its kept answers).
 */

/** One resource to evaluate, as the policy sees it. */
export interface EngineResource {
  /** The resource's id (from its descriptor, or given by the caller). */
  readonly id: string;
  readonly resourceType: string;
  /**
   * The value the policy is unified with: the parsed descriptor, or for `previous_vs_current`
   * `{ <previous-reference>: deployed | null, <current-reference>: descriptor }`.
   */
  readonly descriptor: unknown;
  /** The same as text, for engines that take text (remote: `content`). */
  readonly content: string;
}

/** The parts of a policy or metric an engine needs. */
export interface EngineEntity {
  readonly id: string;
  readonly version: number;
  readonly kind: 'policy' | 'metric';
  readonly engine: 'cue' | 'remote' | 'llm';
  /** cue: the policy text. */
  readonly cueScript: string | null;
  /** cue: true = `cue vet -c` semantics (missing regular fields are violations); false = conflicts only. */
  readonly requireConcrete: boolean;
  /** remote: base URL; the engine is called at `{remoteEngineUrl}/v1/evaluate`. */
  readonly remoteEngineUrl: string | null;
  /** llm: the requirement in natural language. */
  readonly llmRule?: string | null;
  /** cue: the evaluator chosen when it was saved; absent (saved before the choice existed): decided when evaluated. */
  readonly evaluator?: CueEvaluator | null;
}

/**
 * Which evaluator runs a CUE policy: the native one in process, or the reference one, CUE v0.4 (docs/cue-policies.md).
 * `wasm` names the reference evaluator in the API and the database: the value clients read keeps its name.
 */
export type CueEvaluator = 'native' | 'wasm';

/** The verdict on one (entity, resource) pair; the contract's `result` object. */
export interface EngineResult {
  readonly satisfiesPolicy: boolean;
  /** The engine could not judge (crash, timeout, garbage): the outcome is `failed`, never `ok`. */
  readonly isError: boolean;
  readonly errors: string[];
  readonly details?: Record<string, unknown>;
  /** Metrics: the number the metric produced. */
  readonly value?: number;
}

export const engineFailure = (message: string): EngineResult => ({ satisfiesPolicy: false, isError: true, errors: [message] });

/** A CUE script checked on its own (when a policy is saved). */
/** `unfinished`: CUE did not finish the check within cue-config's bounds (a script too costly to run). */
export type CueCompileCheck = { ok: true } | CueCheckRefusal;
export type CueCheckRefusal = { ok: false; message: string; line?: number; column?: number; unfinished?: true };

/** The check when a policy is saved, with the evaluator that will run it and why (null reason: the native one, nothing to explain). */
export type CueScriptCheck = { ok: true; evaluator: CueEvaluator; evaluatorReason: string | null } | CueCheckRefusal;

/** A pair on which the two CUE evaluators disagree (cue-config.evaluator = shadow): both verdicts. */
export interface EvaluatorDisagreement {
  readonly entity: Pick<EngineEntity, 'id' | 'version' | 'kind'>;
  readonly resourceId: string;
  readonly native: EngineResult;
  readonly wasm: EngineResult;
}

/** Told of each disagreement as it is found; engines know no database, their caller records it. */
export type DisagreementSink = (disagreement: EvaluatorDisagreement) => void;

/**
 * One engine. `evaluate` answers, for each entity, one result per resource in the order given:
 * `results[entityIndex][resourceIndex]`. It never throws for a failure of the engine itself: that
 * pair (or all of them) gets an `isError` result.
 */
export interface PolicyEngine {
  evaluate(
    entities: readonly EngineEntity[],
    resources: readonly EngineResource[],
    signal?: AbortSignal,
    onDisagreement?: DisagreementSink,
  ): Promise<EngineResult[][]>;
}
