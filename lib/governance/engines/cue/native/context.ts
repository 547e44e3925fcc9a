/** What one evaluation shares: its budget of steps, its depth limit, and what the save check tracks. */

/** Thrown when an evaluation spends its budget: the pair fails, it never passes. */
export class BudgetExceeded extends Error {
  constructor(readonly maxSteps: number) {
    super(`the evaluation took more than ${maxSteps} steps (cue-config.max-steps)`);
    this.name = 'BudgetExceeded';
  }
}

export class Context {
  steps = 0;
  /** Counts reads of values a descriptor could still change (the save check, see policy.ts). */
  taint = 0;
  /** Counts reads of the descriptor's space that a descriptor could change (the save check). */
  dataReads = 0;

  constructor(
    readonly maxSteps: number,
    readonly maxDepth = 100,
    /** The save check: no descriptor, so open structs and lists may still receive data. */
    readonly withoutData = false,
    /**
     * A descriptor was given: nothing more will be unified in, so an open struct or list is final and a validator's
     * verdict on it too (a descriptor violating it is a conflict, in both modes). Without one (a file alone, as CUE's
     * conformance files are), a validator that may still come to hold on an open value fails incompletely.
     */
    readonly closedWorld = false,
  ) {}

  step(): void {
    if (++this.steps > this.maxSteps) throw new BudgetExceeded(this.maxSteps);
  }
}
