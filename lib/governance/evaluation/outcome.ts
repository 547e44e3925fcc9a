import type { EngineResult } from '../engines/engine';
import type { EntityStatus } from '../policies/lifecycle';

/** From the best to the worst; `waived` passes (a non-compliance an active exception waives). */
export const OUTCOMES = ['ok', 'waived', 'info', 'warning', 'error', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The outcome rules of the contract: an engine that could not judge is `failed`; a satisfied
 * entity is `ok`; a non-compliance an active exception covers is `waived`; otherwise severity
 * `info` gives `info`, a `grace` entity gives `warning`, and the severity counts as it is for an
 * enabled one (a draft under test is judged as if enabled).
 */
export function outcomeOf(result: EngineResult, entity: { status: EntityStatus; severity: 'info' | 'warning' | 'error' }, waived = false): Outcome {
  if (result.isError) return 'failed';
  if (result.satisfiesPolicy) return 'ok';
  if (waived) return 'waived';
  if (entity.severity === 'info') return 'info';
  if (entity.status === 'grace') return 'warning';
  return entity.severity;
}

/** The worst outcome, and whether a deploy may go on (no `error`, no `failed`). */
export function overallOutcome(outcomes: Iterable<Outcome>): { outcome: Outcome; passed: boolean } {
  let worst = 0;
  for (const outcome of outcomes) worst = Math.max(worst, OUTCOMES.indexOf(outcome));
  const outcome = OUTCOMES[worst];
  return { outcome, passed: outcome !== 'error' && outcome !== 'failed' };
}
