/**
 * The property-based differential between the native CUE evaluator and CUE v0.4 (WebAssembly):
 * random policies and descriptors near their boundaries (tests/support/cue-policy-generator.ts),
 * both requireConcrete modes, each disagreement classified by direction and minimised with
 * fast-check's shrinking. Run by tests/unit/cue-native-fuzz.test.ts (bounded, fixed seed) and by
 * scripts/cue-fuzz.ts (longer); docs/cue-policies.md, "The differential, continuously".
 */
import fc from 'fast-check';

import { createReferenceEvaluator, type CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';
import type { CueCompileCheck, EngineResult } from '#lib/governance/engines/engine';

import { NativeSandbox, type Runaway, type SandboxCompile } from './cue-native-sandbox';
import {
  type ComputedEntry,
  descriptorsOf,
  type Field,
  type FuzzCase,
  fuzzCaseArbitrary,
  type Json,
  type PolicyModel,
  renderPolicy,
  topLevelNames,
} from './cue-policy-generator';
import { cuePolicy } from './native-cue';

/**
 * - `native-compliant/cue-not`: the native evaluator passes what CUE fails (the dangerous one).
 * - `native-not/cue-compliant`: the native evaluator fails what CUE passes.
 * - `error-vs-verdict`: one gives a verdict, the other an engine error (timeout, fault, a v0.4 limit).
 * - `compile`: one accepts the script, the other refuses it.
 * - `runaway`: the native evaluator gave no answer within its limits (time, heap).
 */
export type Direction = 'native-compliant/cue-not' | 'native-not/cue-compliant' | 'error-vs-verdict' | 'compile' | 'runaway';

const DIRECTIONS: readonly Direction[] = ['native-compliant/cue-not', 'runaway', 'compile', 'native-not/cue-compliant', 'error-vs-verdict'];

/** A compile disagreement in the dangerous direction: the native evaluator accepts a script CUE refuses, and passes a descriptor with it. */
const NATIVE_ACCEPTS = 'the native evaluator accepts the script and passes the descriptor; CUE refuses the script';
const NATIVE_REFUSES = 'the native evaluator refuses the script; CUE accepts it';

const NATIVE_FAILED = 'the native evaluator failed, CUE judged';
const CUE_FAILED = 'CUE failed, the native evaluator failed the pair too (a violation)';
const CUE_FAILED_NATIVE_PASSED = 'CUE failed, the native evaluator passed';
const JUDGED_WITH_DATA = "CUE judged with the descriptor's data in the script";

/** What one side answered. */
export type Outcome =
  | { readonly kind: 'verdict'; readonly result: EngineResult }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'accepted' }
  | { readonly kind: 'runaway'; readonly reason: string };

export interface Disagreement {
  readonly direction: Direction;
  readonly detail: string;
  /** The index of the generated case (fast-check's run number for the seed: the minimisation replays it). */
  readonly caseIndex: number;
  readonly script: string;
  /** Absent for a script that ran away or was refused, whatever the descriptor. */
  readonly descriptor?: Json;
  readonly requireConcrete?: boolean;
  readonly native: Outcome;
  readonly cue: Outcome;
  /** CUE's second opinion when its first was no verdict on the pair: the descriptor's data written into the script (see cueWithData). */
  readonly cueWithData?: Outcome;
  /** The allow-list entry that accepts it (see ALLOWED). */
  readonly allowed?: string;
}

const verdictOf = (outcome: Outcome | undefined) => (outcome?.kind === 'verdict' ? outcome.result : undefined);

/**
 * What v0.4's check of the policy alone reports: a computed value (the generator names them c<n>
 * and _c<n>), a value not concrete without the data, a builtin given what is not there yet.
 */
const POLICY_ALONE = /^_?c\d+[.:]|non-concrete value|incomplete value|^error in call to /;

/**
 * Disagreements accepted knowingly, each with its reason: the documented differences of CUE v0.4
 * (docs/cue-policies.md, "Differences from CUE v0.4") that the generated policies reach. The
 * generator leaves out those it can (required fields, list.MinItems on an open list, list
 * arithmetic, comparisons of two structs or lists: see cue-policy-generator.ts). Each entry is checked on the pair,
 * not on the policy's shape: a fault of the native evaluator in a policy of the same shape is not hidden.
 */
export const ALLOWED: readonly { readonly name: string; readonly reason: string; readonly matches: (disagreement: Disagreement) => boolean }[] = [
  {
    name: 'v0.4 checks the policy alone',
    reason:
      'A value computed from descriptor data and then constrained: v0.4 also checks the policy without the descriptor and refuses the script or fails the pair with what it finds there (docs). Accepted only when what v0.4 reports is about a computed value (or a value not concrete without the data), and CUE, given the same pair with the data written into the script, gives the native verdict. (v0.4 is lenient with fields written next to an embedded definition, hence the first condition: the second opinion alone would let a closedness fault through.)',
    matches: (disagreement) => {
      const native = verdictOf(disagreement.native);
      const second = verdictOf(disagreement.cueWithData);
      const first = disagreement.cue.kind === 'refused' ? disagreement.cue.message : (verdictOf(disagreement.cue)?.errors[0] ?? '');
      const applies =
        (disagreement.direction === 'compile' && disagreement.detail === NATIVE_ACCEPTS) ||
        (disagreement.direction === 'error-vs-verdict' && (disagreement.detail === CUE_FAILED || disagreement.detail === CUE_FAILED_NATIVE_PASSED));
      return (
        applies &&
        POLICY_ALONE.test(first) &&
        native !== undefined &&
        second !== undefined &&
        !second.isError &&
        second.satisfiesPolicy === native.satisfiesPolicy
      );
    },
  },
  {
    name: 'an `if` clause inside a list comprehension comparing different types',
    reason:
      'v0.4 fails the pair with `invalid operands` or `cannot use "x" (type string) as type bool` and no path (an engine error), the latter even without the value; natively, as in current CUE, it is a violation with `invalid operands` when the value is there, and incomplete (a pass when requireConcrete is false) when it is not (docs).',
    matches: (disagreement) => {
      const native = verdictOf(disagreement.native);
      const cue = verdictOf(disagreement.cue);
      if (disagreement.direction !== 'error-vs-verdict' || !/\[for [^\]]* if /.test(disagreement.script) || !native || !cue) return false;
      const violation = disagreement.detail === CUE_FAILED && native.errors.some((error) => /invalid operands .* to '=='/.test(error));
      const incomplete =
        disagreement.detail === CUE_FAILED_NATIVE_PASSED &&
        disagreement.requireConcrete === false &&
        cue.errors.some((error) => /^cannot use .* as type/.test(error));
      return (violation && cue.errors.some((error) => /^invalid operands .* to '=='|^cannot use .* as type/.test(error))) || incomplete;
    },
  },
];

/**
 * What a run must not have (tests/unit/cue-native-fuzz.test.ts): the native evaluator passing what
 * CUE does not pass (fails, refuses the script, or fails with an error that is not a timeout of
 * its own), or giving no answer. Unless allowed (ALLOWED).
 */
export function isAsserted(disagreement: Disagreement): boolean {
  if (disagreement.allowed) return false;
  const cue = verdictOf(disagreement.cue);
  return (
    disagreement.direction === 'native-compliant/cue-not' ||
    disagreement.direction === 'runaway' ||
    (disagreement.direction === 'compile' && disagreement.detail === NATIVE_ACCEPTS) ||
    (disagreement.direction === 'error-vs-verdict' &&
      disagreement.detail === CUE_FAILED_NATIVE_PASSED &&
      !cue?.errors.some((error) => CUE_NO_ANSWER.test(error)))
  );
}

/** CUE's own limits (cue-runner.ts): no answer, rather than an error in the policy. */
const CUE_NO_ANSWER = /CUE did not finish within|CUE printed more than|aborted before CUE finished/;

export interface Minimised {
  readonly original: Disagreement;
  /** The smallest pair found that still disagrees in the same direction (the original when it did not reproduce alone). */
  readonly minimal: Disagreement;
  readonly reproduced: boolean;
  readonly shrinkRuns: number;
  readonly elapsedMs: number;
}

export interface FuzzOptions {
  readonly seed: number;
  readonly policies: number;
  /** Descriptors per policy besides the compliant one. */
  readonly plans: number;
  /** Cases evaluated at once (the CUE workers run in parallel, the native one in turn). */
  readonly concurrency: number;
  /**
   * How many disagreements of each kind (direction and detail) are minimised, from different
   * policies; only those of the asserted kinds, or all; and the time each minimisation may take.
   */
  readonly minimise: { readonly perKind: number; readonly assertedOnly: boolean; readonly budgetMs: number };
  readonly cueWorkers: number;
  readonly log?: (line: string) => void;
}

export interface FuzzReport {
  readonly seed: number;
  readonly policies: number;
  /** Policy × descriptor × mode pairs both sides judged. */
  readonly pairs: number;
  /** Pairs evaluated natively where CUE refused the script (judged only for a pass). */
  readonly nativeOnlyPairs: number;
  readonly compile: Record<'both' | 'neither' | 'native only' | 'CUE only' | 'native unsupported' | 'native ran away' | 'CUE unfinished', number>;
  readonly verdicts: Record<'compliant' | 'not compliant' | 'error', number>;
  readonly disagreements: readonly Disagreement[];
  readonly minimised: readonly Minimised[];
  /** Internal exceptions of the native evaluator (not CUE errors), as `policy n: reason`: none may occur. */
  readonly faults: readonly string[];
  readonly elapsedMs: number;
}

const MODES = [true, false] as const;

/** CUE's side of a runaway, until it is asked (a minimisation asks only for the smallest). */
const NOT_ASKED: Outcome = { kind: 'runaway', reason: 'not asked' };
const requireConcreteOf = (disagreement: Disagreement) => disagreement.requireConcrete;

const isRunaway = (value: EngineResult | Runaway | SandboxCompile): value is Runaway => 'runaway' in value;

/** What the native side and CUE must show for a case to disagree in a direction: lets a minimisation skip the work that cannot. */
interface Want {
  readonly direction: Direction;
  readonly detail: string;
  readonly requireConcrete?: boolean;
}

export class Differential {
  private readonly wasm: CueReferenceEvaluator;
  private readonly sandbox: NativeSandbox;
  private readonly checks = new Map<string, Promise<CueCompileCheck | { noAnswer: string }>>();
  private readonly cueResults = new Map<string, EngineResult>();
  private readonly cueAloneResults = new Map<string, Promise<EngineResult>>();
  /** The native answers by script, and by mode and descriptor: a shrinking step that changes nothing rendered costs nothing (a runaway costs a second). */
  private readonly nativeResults = new Map<string, { compile: SandboxCompile; pairs: Map<string, EngineResult | Runaway> }>();
  /** Internal exceptions of the native evaluator, by script. */
  private readonly faults = new Map<string, string[]>();

  constructor(private readonly options: FuzzOptions) {
    this.wasm = createReferenceEvaluator({ timeout: 20_000, workers: options.cueWorkers, recycleAfterRuns: 200, maxOutputBytes: 16 * 1024 * 1024 });
    // The steps and the heap bound the native side's work; the time limit is only the backstop for what escapes both,
    // and generous, so that a loaded machine (CI on 2 cores) is never taken for a runaway.
    this.sandbox = new NativeSandbox({ memoryMb: 64, timeoutMs: 10_000, maxSteps: 200_000 });
  }

  private check(script: string) {
    let known = this.checks.get(script);
    if (!known) {
      known = this.wasm.check(script).catch((error: Error) => ({ noAnswer: error.message }));
      this.checks.set(script, known);
    }
    return known;
  }

  /** CUE's results for the pairs (cached: a minimisation asks again for the same ones); both modes in one call, which runs them side by side. */
  private async cue(script: string, pairs: readonly { descriptor: Json; requireConcrete: boolean }[]): Promise<EngineResult[]> {
    const key = (descriptor: Json, requireConcrete: boolean) => `${requireConcrete}\u0000${script}\u0000${JSON.stringify(descriptor)}`;
    const missing = pairs.filter(({ descriptor, requireConcrete }) => !this.cueResults.has(key(descriptor, requireConcrete)));
    if (missing.length > 0) {
      const modes = MODES.filter((requireConcrete) => missing.some((pair) => pair.requireConcrete === requireConcrete));
      const descriptors = [...new Map(missing.map((pair) => [JSON.stringify(pair.descriptor), pair.descriptor])).values()];
      const results = await this.wasm.evaluate(
        modes.map((requireConcrete) => cuePolicy(`p${requireConcrete}`, script, requireConcrete)),
        descriptors.map((descriptor, at) => ({ id: `r${at}`, resourceType: 'dataproduct', descriptor, content: JSON.stringify(descriptor) })),
      );
      modes.forEach((requireConcrete, entity) =>
        descriptors.forEach((descriptor, at) => this.cueResults.set(key(descriptor, requireConcrete), results[entity][at])),
      );
    }
    return pairs.map(({ descriptor, requireConcrete }) => this.cueResults.get(key(descriptor, requireConcrete)) as EngineResult);
  }

  /**
   * v0.4 reports some errors without a path (an `if` in a list comprehension comparing different
   * types), and such an error fails every pair of its run: a pair that failed with an error in a run
   * of several is asked again alone, so that its answer is its own.
   */
  private async cueAlone(script: string, pair: { descriptor: Json; requireConcrete: boolean }): Promise<EngineResult> {
    const key = `${pair.requireConcrete}\u0000${script}\u0000${JSON.stringify(pair.descriptor)}`;
    let known = this.cueAloneResults.get(key);
    if (!known) {
      known = this.wasm
        .evaluate(
          [cuePolicy('p', script, pair.requireConcrete)],
          [{ id: 'r', resourceType: 'dataproduct', descriptor: pair.descriptor, content: JSON.stringify(pair.descriptor) }],
        )
        .then(([[result]]) => result);
      this.cueAloneResults.set(key, known);
    }
    return known;
  }

  /** The native evaluator's answers, from the sandbox for those not known yet; undefined for pairs left unjudged after a runaway. */
  private async native(script: string, descriptors: readonly Json[], modes: readonly boolean[]) {
    const key = (requireConcrete: boolean, descriptor: Json) => `${requireConcrete}\u0000${JSON.stringify(descriptor)}`;
    let known = this.nativeResults.get(script);
    const missing = (requireConcrete: boolean) => descriptors.filter((descriptor) => !known?.pairs.has(key(requireConcrete, descriptor)));
    const compiled = (compile: SandboxCompile) => 'ok' in compile && compile.ok;
    if (!known || (compiled(known.compile) && modes.some((requireConcrete) => missing(requireConcrete).length > 0))) {
      const asked = [
        ...new Map(modes.flatMap((requireConcrete) => missing(requireConcrete)).map((descriptor) => [JSON.stringify(descriptor), descriptor])).values(),
      ];
      const answer = await this.sandbox.run(script, asked, modes);
      const faults = [
        ...('fault' in answer.compile && answer.compile.fault ? [answer.compile.unsupported] : []),
        ...(answer.pairs ?? []).flat().flatMap((result) => (result && 'fault' in result && 'errors' in result ? result.errors : [])),
      ];
      if (faults.length > 0) this.faults.set(script, [...(this.faults.get(script) ?? []), ...faults]);
      known ??= { compile: answer.compile, pairs: new Map() };
      this.nativeResults.set(script, known);
      modes.forEach((requireConcrete, modeIndex) =>
        asked.forEach((descriptor, at) => {
          const result = answer.pairs?.[modeIndex][at];
          if (result) known?.pairs.set(key(requireConcrete, descriptor), result);
        }),
      );
    }
    const { compile, pairs } = known;
    if (!compiled(compile)) return { compile };
    return { compile, pairs: modes.map((requireConcrete) => descriptors.map((descriptor) => pairs.get(key(requireConcrete, descriptor)))) };
  }

  /** A runaway with CUE's answer for the same script (and pair), for the report. */
  async withCue(disagreement: Disagreement): Promise<Disagreement> {
    if (disagreement.cue !== NOT_ASKED) return disagreement;
    const check = await this.check(disagreement.script);
    if (disagreement.descriptor === undefined || requireConcreteOf(disagreement) === undefined || !('ok' in check) || !check.ok)
      return { ...disagreement, cue: outcomeOfCheck(check) };
    const [result] = await this.cue(disagreement.script, [
      { descriptor: disagreement.descriptor, requireConcrete: requireConcreteOf(disagreement) as boolean },
    ]);
    return { ...disagreement, cue: { kind: 'verdict', result } };
  }

  /**
   * A second opinion of CUE when v0.4's answer is not a verdict on the pair (it refused the script,
   * or failed the pair): the same pair, with the descriptor's fields that the policy declares at
   * its top also written into the script. v0.4 checks the policy alone besides each descriptor
   * (docs/cue-policies.md, "A value computed from descriptor data and then constrained"); with the
   * data in the script, the policy alone is the policy with that data. Fields the policy does not
   * declare stay out, so that a closed policy still refuses them.
   */
  private async cueWithData(script: string, declared: readonly string[], descriptor: Json, requireConcrete: boolean): Promise<Outcome | undefined> {
    if (!descriptor || typeof descriptor !== 'object' || Array.isArray(descriptor)) return undefined;
    const lines = Object.entries(descriptor)
      .filter(([key]) => declared.includes(key))
      .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`);
    if (lines.length === 0) return undefined;
    const [result] = await this.cue(`${script}\n// the descriptor's data, for CUE v0.4's check of the policy alone\n${lines.join('\n')}\n`, [
      { descriptor, requireConcrete },
    ]);
    return { kind: 'verdict', result };
  }

  /**
   * One policy with its descriptors, in the given modes: the disagreements, and what was counted.
   * With `want`, only what can show that disagreement is evaluated (a minimisation's shortcut).
   */
  async evaluateCase(fuzzCase: FuzzCase, caseIndex: number, modes: readonly boolean[], want?: Want) {
    const script = renderPolicy(fuzzCase.policy);
    const declared = topLevelNames(fuzzCase.policy);
    const descriptors = descriptorsOf(fuzzCase.policy, fuzzCase.plans);
    const disagreements: Disagreement[] = [];
    const counts = { compile: '' as keyof FuzzReport['compile'], pairs: 0, nativeOnlyPairs: 0, verdicts: { compliant: 0, 'not compliant': 0, error: 0 } };
    const add = (disagreement: Omit<Disagreement, 'caseIndex' | 'script' | 'allowed'>) => {
      const full: Disagreement = { ...disagreement, caseIndex, script };
      const allowed = ALLOWED.find((entry) => entry.matches(full));
      disagreements.push(allowed ? { ...full, allowed: allowed.name } : full);
    };
    const done = async () => {
      // A runaway's report shows what CUE answers to the same pair (a minimisation asks only for its smallest).
      if (!want) disagreements.splice(0, disagreements.length, ...(await Promise.all(disagreements.map((disagreement) => this.withCue(disagreement)))));
      return { disagreements, counts };
    };
    const native = await this.native(script, descriptors, modes);
    if (isRunaway(native.compile)) {
      counts.compile = 'native ran away';
      add({ direction: 'runaway', detail: 'compiling', native: { kind: 'runaway', reason: native.compile.runaway }, cue: NOT_ASKED });
      return done();
    }
    if (!native.compile.ok && native.compile.unsupported !== undefined) {
      counts.compile = 'native unsupported';
      return done();
    }
    const nativePairs = modes.flatMap((requireConcrete, modeIndex) =>
      descriptors.map((descriptor, at) => ({ descriptor, requireConcrete, native: native.pairs?.[modeIndex][at] })),
    );
    for (const pair of nativePairs) {
      if (pair.native && isRunaway(pair.native)) {
        add({
          direction: 'runaway',
          detail: 'evaluating',
          descriptor: pair.descriptor,
          requireConcrete: pair.requireConcrete,
          native: { kind: 'runaway', reason: pair.native.runaway },
          cue: NOT_ASKED,
        });
      }
    }
    if (want?.direction === 'runaway') return done();
    if (!native.compile.ok) {
      const cueCheck = await this.check(script);
      if (cueUnfinished(cueCheck)) counts.compile = 'CUE unfinished';
      else if (!('ok' in cueCheck) || !cueCheck.ok) counts.compile = 'neither';
      else {
        counts.compile = 'CUE only';
        add({ direction: 'compile', detail: NATIVE_REFUSES, native: { kind: 'refused', message: native.compile.message }, cue: { kind: 'accepted' } });
      }
      return done();
    }
    const judged = nativePairs.filter((pair): pair is typeof pair & { native: EngineResult } => pair.native !== undefined && !isRunaway(pair.native));
    // A minimisation evaluates with CUE only the pairs whose native answer can still disagree the way it looks for.
    const worth = judged.filter((pair) => {
      if (!want) return true;
      if (want.requireConcrete !== undefined && pair.requireConcrete !== want.requireConcrete) return false;
      if (want.direction === 'native-compliant/cue-not') return pair.native.satisfiesPolicy;
      if (want.direction === 'native-not/cue-compliant') return !pair.native.satisfiesPolicy && !pair.native.isError;
      return want.direction === 'error-vs-verdict';
    });
    // The pairs first; CUE's check of the script alone only when it failed one (a script it refuses fails them all).
    const cueAnswers = await this.cue(script, worth);
    if (want?.direction === 'compile' || cueAnswers.some((answer) => answer.isError)) {
      const cueCheck = await this.check(script);
      if (cueUnfinished(cueCheck)) {
        counts.compile = 'CUE unfinished';
        return done();
      }
      if (!('ok' in cueCheck) || !cueCheck.ok) {
        counts.compile = 'native only';
        for (const pair of judged) {
          counts.nativeOnlyPairs += 1;
          if (!pair.native.satisfiesPolicy) continue;
          const refusal = outcomeOfCheck(cueCheck);
          const alone = refusal.kind === 'refused' && POLICY_ALONE.test(refusal.message);
          const cueWithData = alone ? await this.cueWithData(script, declared, pair.descriptor, pair.requireConcrete) : undefined;
          add({
            direction: 'compile',
            detail: NATIVE_ACCEPTS,
            descriptor: pair.descriptor,
            requireConcrete: pair.requireConcrete,
            native: { kind: 'verdict', result: pair.native },
            cue: refusal,
            cueWithData,
          });
        }
        return done();
      }
    }
    counts.compile = 'both';
    if (worth.length > 1) {
      for (const [at, answer] of cueAnswers.entries()) if (answer.isError) cueAnswers[at] = await this.cueAlone(script, worth[at]);
    }
    for (const [at, pair] of worth.entries()) {
      const cue = cueAnswers[at];
      counts.pairs += 1;
      counts.verdicts[cue.isError ? 'error' : cue.satisfiesPolicy ? 'compliant' : 'not compliant'] += 1;
      const direction = directionOf(pair.native, cue);
      if (!direction) continue;
      const base = {
        descriptor: pair.descriptor,
        requireConcrete: pair.requireConcrete,
        native: { kind: 'verdict', result: pair.native },
        cue: { kind: 'verdict', result: cue },
      } as const;
      if (direction !== 'error-vs-verdict') {
        add({ ...base, direction, detail: '' });
      } else if (pair.native.isError) {
        add({ ...base, direction, detail: NATIVE_FAILED });
      } else {
        // CUE failed where the native evaluator judged, with what its check of the policy alone finds: its verdict with the
        // data in the script, if it gives one, is compared instead.
        const cueWithData = POLICY_ALONE.test(cue.errors[0] ?? '')
          ? await this.cueWithData(script, declared, pair.descriptor, pair.requireConcrete)
          : undefined;
        const second = cueWithData?.kind === 'verdict' ? directionOf(pair.native, cueWithData.result) : 'error-vs-verdict';
        if (second === 'native-compliant/cue-not' || second === 'native-not/cue-compliant')
          add({ ...base, direction: second, detail: JUDGED_WITH_DATA, cueWithData });
        else add({ ...base, direction, detail: pair.native.satisfiesPolicy ? CUE_FAILED_NATIVE_PASSED : CUE_FAILED, cueWithData });
      }
    }
    return done();
  }

  /** The bounded run: `policies` cases of the seed, then the minimisation of the disagreements chosen. */
  async fuzz(): Promise<FuzzReport> {
    const { seed, policies, plans, concurrency, log } = this.options;
    const started = Date.now();
    const cases = fc.sample(fuzzCaseArbitrary(plans), { seed, numRuns: policies });
    const report = {
      seed,
      policies,
      pairs: 0,
      nativeOnlyPairs: 0,
      compile: { both: 0, neither: 0, 'native only': 0, 'CUE only': 0, 'native unsupported': 0, 'native ran away': 0, 'CUE unfinished': 0 },
      verdicts: { compliant: 0, 'not compliant': 0, error: 0 },
      disagreements: [] as Disagreement[],
      minimised: [] as Minimised[],
      faults: [] as string[],
      elapsedMs: 0,
    };
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < cases.length) {
        const index = next++;
        const { disagreements, counts } = await this.evaluateCase(cases[index], index, MODES);
        report.faults.push(...(this.faults.get(renderPolicy(cases[index].policy)) ?? []).map((reason) => `policy ${index}: ${reason}`));
        report.compile[counts.compile] += 1;
        report.pairs += counts.pairs;
        report.nativeOnlyPairs += counts.nativeOnlyPairs;
        for (const [verdict, count] of Object.entries(counts.verdicts)) report.verdicts[verdict as keyof typeof counts.verdicts] += count;
        report.disagreements.push(...disagreements);
        done += 1;
        if (log && done % 100 === 0)
          log(
            `${done}/${cases.length} policies, ${report.pairs} pairs, ${report.disagreements.length} disagreements, ${((Date.now() - started) / 1000).toFixed(0)} s`,
          );
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    report.disagreements.sort((a, b) => a.caseIndex - b.caseIndex);
    for (const chosen of this.toMinimise(report.disagreements)) {
      const minimised = await this.minimise(chosen);
      log?.(
        `minimised a ${chosen.direction} disagreement of policy ${chosen.caseIndex} in ${minimised.shrinkRuns} runs, ${(minimised.elapsedMs / 1000).toFixed(1)} s`,
      );
      report.minimised.push(minimised);
    }
    report.elapsedMs = Date.now() - started;
    return report;
  }

  /** Per kind (direction and detail), the first disagreements of different policies; the asserted kinds first, the others unless only those are asked for. */
  private toMinimise(disagreements: readonly Disagreement[]): Disagreement[] {
    const { perKind, assertedOnly } = this.options.minimise;
    const kinds = new Map<string, Disagreement[]>();
    const candidates = disagreements.filter((disagreement) => !disagreement.allowed && (!assertedOnly || isAsserted(disagreement)));
    for (const disagreement of [...candidates.filter(isAsserted), ...candidates.filter((candidate) => !isAsserted(candidate))]) {
      const kind = `${disagreement.direction}: ${disagreement.detail}`;
      const chosen = kinds.get(kind) ?? [];
      if (chosen.length < perKind && !chosen.some((other) => other.caseIndex === disagreement.caseIndex)) chosen.push(disagreement);
      kinds.set(kind, chosen);
    }
    return [...kinds.values()].flat();
  }

  /**
   * Replays the disagreement's case (fast-check's `path`) with a property that fails while the case
   * still disagrees in the same direction and mode, and lets fast-check shrink it; then removes
   * what fast-check's shrinking does not reach alone (a field in the middle of the list, a
   * computed value, a descriptor's change), one at a time. Past the time budget every further
   * candidate passes, which ends both with the smallest case so far.
   */
  async minimise(original: Disagreement): Promise<Minimised> {
    const started = Date.now();
    const want: Want = { direction: original.direction, detail: original.detail, requireConcrete: original.requireConcrete };
    const modes = original.requireConcrete === undefined ? MODES : [original.requireConcrete];
    const overBudget = () => Date.now() - started > this.options.minimise.budgetMs;
    let minimal: { fuzzCase: FuzzCase; disagreement: Disagreement } | undefined;
    let shrinkRuns = 0;
    const stillDisagrees = async (fuzzCase: FuzzCase): Promise<boolean> => {
      if (overBudget()) return false;
      shrinkRuns += 1;
      const { disagreements } = await this.evaluateCase(fuzzCase, original.caseIndex, modes, want);
      const same = disagreements.find(
        (candidate) =>
          !candidate.allowed &&
          candidate.direction === want.direction &&
          candidate.detail === want.detail &&
          (want.requireConcrete === undefined || candidate.requireConcrete === want.requireConcrete),
      );
      if (same) minimal = { fuzzCase, disagreement: same };
      return same !== undefined;
    };
    const property = fc.asyncProperty(fuzzCaseArbitrary(this.options.plans), async (fuzzCase) => !(await stillDisagrees(fuzzCase)));
    const result = await fc.check(property, { seed: this.options.seed, path: String(original.caseIndex), numRuns: 1 });
    let improved = minimal !== undefined;
    while (improved && !overBudget()) {
      improved = false;
      for (const candidate of simpler((minimal as { fuzzCase: FuzzCase }).fuzzCase)) {
        if (await stillDisagrees(candidate)) {
          improved = true;
          break;
        }
      }
    }
    return { original, minimal: await this.withCue(minimal?.disagreement ?? original), reproduced: result.failed, shrinkRuns, elapsedMs: Date.now() - started };
  }

  /** How many native workers were replaced because they ran away. */
  get runaways(): number {
    return this.sandbox.replaced;
  }

  async close(): Promise<void> {
    await Promise.all([this.wasm.close(), this.sandbox.close()]);
  }
}

/** Cases one step simpler than a case: one field, computed value or descriptor change less, or a plainer form of one. */
function* simpler(fuzzCase: FuzzCase): Generator<FuzzCase> {
  const { policy, plans } = fuzzCase;
  const withPolicy = (changes: Partial<PolicyModel>): FuzzCase => ({ policy: { ...policy, ...changes }, plans });
  const without = <T>(items: readonly T[], index: number) => items.filter((_, at) => at !== index);
  for (const index of policy.computed.keys()) yield withPolicy({ computed: without(policy.computed, index) });
  if (policy.fields.length > 1) for (const index of policy.fields.keys()) yield withPolicy({ fields: without(policy.fields, index) });
  for (const [index, plan] of plans.entries()) {
    if (plan.extra) yield { policy, plans: plans.map((other, at) => (at === index ? { ...other, extra: null } : other)) };
    for (const change of plan.changes.keys())
      yield { policy, plans: plans.map((other, at) => (at === index ? { ...other, changes: without(other.changes, change) } : other)) };
  }
  if (policy.wrapper !== 'open') yield withPolicy({ wrapper: 'open' });
  if (policy.packageClause) yield withPolicy({ packageClause: false });
  if (policy.redeclare !== 'top') yield withPolicy({ redeclare: 'top' });
  for (const [index, field] of policy.fields.entries()) {
    const replace = (changed: Field) => withPolicy({ fields: policy.fields.map((other, at) => (at === index ? changed : other)) });
    if (field.optional) yield replace({ ...field, optional: false });
    if (field.ty.kind === 'struct' && field.ty.fields.length > 1)
      for (const sub of field.ty.fields.keys()) yield replace({ ...field, ty: { ...field.ty, fields: without(field.ty.fields, sub) } });
    if (field.ty.kind === 'struct' && field.ty.definition) yield replace({ ...field, ty: { ...field.ty, definition: false } });
  }
  for (const [index, entry] of policy.computed.entries()) {
    const replace = (changed: ComputedEntry) => withPolicy({ computed: policy.computed.map((other, at) => (at === index ? changed : other)) });
    if (entry.viaLet) yield replace({ ...entry, viaLet: false });
    if (entry.split) yield replace({ ...entry, split: false });
  }
}

/** CUE gave no answer to the check (a timeout, a crash), or did not finish it within its bounds. */
const cueUnfinished = (check: CueCompileCheck | { noAnswer: string }) => 'noAnswer' in check || (!check.ok && check.unfinished === true);

function outcomeOfCheck(check: CueCompileCheck | { noAnswer: string }): Outcome {
  if ('noAnswer' in check) return { kind: 'runaway', reason: check.noAnswer };
  return check.ok ? { kind: 'accepted' } : { kind: 'refused', message: check.message };
}

function directionOf(native: EngineResult, cue: EngineResult): Direction | undefined {
  if (native.isError || cue.isError) return native.isError && cue.isError ? undefined : 'error-vs-verdict';
  if (native.satisfiesPolicy === cue.satisfiesPolicy) return undefined;
  return native.satisfiesPolicy ? 'native-compliant/cue-not' : 'native-not/cue-compliant';
}

// ---------------------------------------------------------------- the report

const MAX_LISTED = 40;

function formatOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'accepted':
      return 'accepts the script';
    case 'refused':
      return `refuses the script: ${outcome.message}`;
    case 'runaway':
      return `no answer: ${outcome.reason}`;
    case 'verdict': {
      const { result } = outcome;
      if (result.satisfiesPolicy) return 'compliant';
      const first = result.errors.join('\n').split('\n').slice(0, 4).join('\n      ');
      return `${result.isError ? 'error' : 'not compliant'}: ${first}`;
    }
  }
}

/** One line: the direction, the policy's index, the mode, the descriptor and CUE's first message. */
export function formatLine(disagreement: Disagreement): string {
  const cue = disagreement.cueWithData ?? disagreement.cue;
  const message =
    cue.kind === 'verdict' ? (cue.result.errors[0] ?? 'compliant') : cue.kind === 'refused' ? `refuses the script: ${cue.message}` : formatOutcome(cue);
  const mode = disagreement.requireConcrete === undefined ? '' : ` rc=${disagreement.requireConcrete}`;
  const descriptor = disagreement.descriptor === undefined ? '' : ` ${JSON.stringify(disagreement.descriptor)}`;
  return `${disagreement.direction} policy ${disagreement.caseIndex}${mode}${descriptor}: CUE: ${message.split('\n')[0]}`;
}

function formatDisagreement(disagreement: Disagreement): string {
  const lines = [
    `  policy:\n${disagreement.script
      .trimEnd()
      .split('\n')
      .map((line) => `    | ${line}`)
      .join('\n')}`,
  ];
  if (disagreement.descriptor !== undefined) lines.push(`  descriptor: ${JSON.stringify(disagreement.descriptor)}`);
  if (disagreement.requireConcrete !== undefined) lines.push(`  requireConcrete: ${disagreement.requireConcrete}`);
  lines.push(`  native: ${formatOutcome(disagreement.native)}`, `  CUE:    ${formatOutcome(disagreement.cue)}`);
  if (disagreement.cueWithData) lines.push(`  CUE with the descriptor's data in the script: ${formatOutcome(disagreement.cueWithData)}`);
  if (disagreement.allowed) lines.push(`  allowed: ${disagreement.allowed}`);
  return lines.join('\n');
}

export function formatReport(report: FuzzReport): string {
  const byDirection = DIRECTIONS.map((direction) => {
    const all = report.disagreements.filter((disagreement) => disagreement.direction === direction);
    const policies = new Set(all.map((disagreement) => disagreement.caseIndex)).size;
    const details = [...new Set(all.map((disagreement) => disagreement.detail).filter(Boolean))];
    const counted = details.map((detail) => `${all.filter((d) => d.detail === detail).length}: ${detail}`);
    const counts = `${String(all.length).padStart(5)} pairs in ${String(policies).padStart(4)} policies`;
    return `  ${direction.padEnd(26)} ${counts}${counted.length > 0 ? ` (${counted.join('; ')})` : ''}`;
  });
  const lines = [
    `CUE differential, seed ${report.seed}: ${report.policies} policies, ${report.pairs} pairs judged by both (+ ${report.nativeOnlyPairs} natively where CUE refused the script), ${(report.elapsedMs / 1000).toFixed(1)} s`,
    `compile: ${Object.entries(report.compile)
      .map(([what, count]) => `${what} ${count}`)
      .join(', ')}`,
    `CUE's verdicts on the pairs judged: ${Object.entries(report.verdicts)
      .map(([what, count]) => `${what} ${count}`)
      .join(', ')}`,
    `disagreements by direction (${report.disagreements.filter(isAsserted).length} asserted):`,
    ...byDirection,
    `internal exceptions of the native evaluator: ${report.faults.length}`,
    ...report.faults.slice(0, MAX_LISTED).map((fault) => `  ${fault}`),
  ];
  const allowed = report.disagreements.filter((disagreement) => disagreement.allowed);
  for (const name of new Set(allowed.map((disagreement) => disagreement.allowed))) {
    lines.push(`  allowed (${name}): ${allowed.filter((disagreement) => disagreement.allowed === name).length} pairs`);
  }
  const asserted = report.disagreements.filter(isAsserted);
  if (asserted.length > 0) lines.push('', `asserted disagreements, as found (policy, mode, descriptor: CUE's first message):`);
  for (const disagreement of asserted.slice(0, MAX_LISTED)) lines.push(`  ${formatLine(disagreement)}`);
  if (asserted.length > MAX_LISTED) lines.push(`  ... and ${asserted.length - MAX_LISTED} more`);
  for (const { original, minimal, reproduced, shrinkRuns, elapsedMs } of report.minimised) {
    const how = reproduced ? `minimised in ${shrinkRuns} runs (${(elapsedMs / 1000).toFixed(1)} s)` : 'did not reproduce alone: as found';
    lines.push('', `[${minimal.direction}${minimal.detail ? `: ${minimal.detail}` : ''}] policy ${original.caseIndex}, ${how}`, formatDisagreement(minimal));
  }
  return lines.join('\n');
}
