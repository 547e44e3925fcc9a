import { type Outcome, OUTCOMES } from '#lib/governance/evaluation/outcome';
import type { Threshold } from '#lib/governance/evaluation/thresholds';

/** One policy (or metric) against one descriptor, as every output format prints it. */
export interface CheckResult {
  readonly policy: {
    /** The policy file (`cgp test`) or the policy's id (`cgp evaluate`). */
    readonly ref: string;
    readonly name: string;
    readonly kind: 'policy' | 'metric';
    readonly severity: 'info' | 'warning' | 'error';
  };
  /** The descriptor file, and its text to locate error paths in (null when it could not be read). */
  readonly descriptor: { readonly file: string; readonly text: string | null };
  readonly outcome: Outcome;
  readonly errors: readonly string[];
  readonly value?: number;
  readonly threshold?: Threshold;
}

/** A whole run: every result, the worst outcome, and whether it passes (no `error`, no `failed`). */
export interface CheckRun {
  readonly results: readonly CheckResult[];
  readonly outcome: Outcome;
  readonly passed: boolean;
  /** `cgp evaluate`: the platform's report. */
  readonly reportId?: string;
}

/** A result that stops a deploy. */
export const isFailing = (result: Pick<CheckResult, 'outcome'>) => result.outcome === 'error' || result.outcome === 'failed';

/** Results counted by outcome, every outcome present. */
export function countsOf(results: readonly CheckResult[]): Record<Outcome, number> {
  const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as Record<Outcome, number>;
  for (const result of results) counts[result.outcome]++;
  return counts;
}
