/** What one evaluation shares: its budget of steps, its depth limit, and what the save check tracks. */

/** Thrown when an evaluation spends its budget: the pair fails, it never passes. */
export class BudgetExceeded extends Error {
  constructor(
    readonly maxSteps: number,
    message = `the evaluation took more than ${maxSteps} steps (cue-config.max-steps)`,
  ) {
    super(message);
    this.name = 'BudgetExceeded';
  }
}

/**
 * The most characters (UTF-16 code units) of a string, or elements of a list, that a builtin or a string
 * operation may make: past it the evaluation fails as an exhausted budget does (never a pass, never a value
 * a disjunction or a default could drop), before the result is built.
 */
export const MAX_OUTPUT = 1_000_000;

/** CUE's limit on the count of a string or bytes multiplication, list.Repeat and strings.Repeat (adt.MaxRepeatCount). */
export const MAX_REPEAT_COUNT = 1_000_000;

/** Characters of a string a builtin reads or writes per step of the budget. */
const CHARACTERS_PER_STEP = 16;

/** A builtin or an operation would make a string or list longer than MAX_OUTPUT: the evaluation fails. */
class OutputTooLarge extends BudgetExceeded {
  constructor(maxSteps: number, what: string, size: number, unit: 'characters' | 'elements') {
    super(maxSteps, `${what} would make ${size} ${unit}, more than the native evaluator's limit of ${MAX_OUTPUT}`);
    this.name = 'OutputTooLarge';
  }
}

export class Context {
  steps = 0;
  /** Counts reads of values a descriptor could still change (the save check, see policy.ts). */
  taint = 0;
  /** Counts reads of the descriptor's space that a descriptor could change (the save check). */
  dataReads = 0;
  /** Vertices being evaluated, one inside another. */
  open = 0;

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

  /** Spends `steps` steps at once: a builtin's work on a string or list, in proportion to its size. */
  charge(steps: number): void {
    this.steps += Math.max(0, Math.ceil(steps));
    if (this.steps > this.maxSteps) throw new BudgetExceeded(this.maxSteps);
  }

  /** Spends the steps a string of `length` characters takes to read or write. */
  chargeText(length: number): void {
    this.charge(length / CHARACTERS_PER_STEP);
  }

  /** Refuses a string or list of `size` characters or elements past MAX_OUTPUT: called before it is built. */
  limit(what: string, size: number, unit: 'characters' | 'elements'): void {
    if (!(size <= MAX_OUTPUT)) throw new OutputTooLarge(this.maxSteps, what, size, unit);
  }
}
