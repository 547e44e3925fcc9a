/**
 * The differential per builtin: calls generated from each builtin's own domain
 * (tests/support/builtin-domains.ts) judged by CUE v0.4 (WebAssembly) and by the native evaluator.
 *
 * One policy per builtin holds every generated call, each behind its own `if i == k`, beside the
 * value the native evaluator computed for it (`out: f(args)`, `out: <native value>`): a descriptor
 * `{i: k}` then passes in CUE exactly when CUE computes that call without error and to the same
 * value. Natively the same policy and descriptor are judged as the platform judges them
 * (requireConcrete). Each call ends as one of:
 * - `agreed`: both pass, or both fail;
 * - `deferred`: only CUE can judge it (BeyondNative): the platform asks the reference evaluator;
 * - `native-only`: the native evaluator passes what CUE fails (a wrong value or a missed error): the first rule, never allowed;
 * - `cue-only`: CUE passes what the native evaluator fails (stricter, allowed, reported);
 * - `documented`, `precision`: a difference docs/cue-policies.md names (DOCUMENTED; a value past a double's 15 digits);
 * - `cue-fault`: CUE v0.4 itself crashed (a panic) on the call;
 * - `fault`: an internal exception in the native evaluator (never allowed).
 */
import { compileNative, evaluateNative, type Inspected, inspectFiles } from '@cgp/cue';
import type { Package, Value } from '@cgp/cue/builtins';
import fc from 'fast-check';

import type { CueReferenceEvaluator } from '#lib/governance/engines/cue/reference-evaluator';

import { BUILTIN_ARGUMENTS, cueString, importOf } from './builtin-domains';
import { cuePolicy } from './native-cue';

/** In `npm test`: this many calls of each builtin (fewer once duplicates are dropped), from this seed. */
export const BUILTIN_CI_INPUTS = 24;
export const BUILTIN_CI_SEED = 20261206;

export type Outcome = 'agreed' | 'deferred' | 'documented' | 'precision' | 'cue-fault' | 'native-only' | 'cue-only' | 'fault';

/**
 * Where the native evaluator answers otherwise by design (docs/cue-policies.md, "Differences from CUE
 * v0.4"): it follows current CUE where v0.4's builtin was changed since, or is stricter. Matched on
 * the builtin and on CUE's answer, so that only that difference is let through.
 */
const DOCUMENTED: readonly { readonly builtin: RegExp; readonly cue: RegExp; readonly call?: RegExp; readonly reason: string }[] = [
  { builtin: /^math\.MultipleOf$/, cue: /conflicting values (true and false|false and true)|internal error/, reason: 'v0.4 divided to one digit' },
  {
    builtin: /^strconv\.(ParseInt|ParseUint|Atoi)$/,
    cue: /invalid bit size|invalid base|value out of range/,
    reason: 'integers of any size, bases up to 62, as current CUE',
  },
  {
    builtin: /^strconv\.(FormatInt|FormatUint)$/,
    cue: /illegal AppendInt\/FormatInt base|as uint64|overflows (int64|uint64)/,
    reason: 'any integer, bases up to 62, as current CUE',
  },
  { builtin: /^strconv\.FormatFloat$/, cue: /as int in argument 2/, reason: 'the format as a letter, as current CUE' },
  { builtin: /^strconv\.ParseUint$/, cue: /invalid syntax/, call: /\("[-+]/, reason: 'a sign read as math/big reads it, as current CUE' },
  { builtin: /^(math\.Sqrt|strconv\.FormatFloat)$/, cue: /value was rounded down/, reason: 'v0.4 refuses a zero as a float64' },
  { builtin: /^strconv\.Quote$/, cue: /u007f/, call: /u007f/, reason: 'DEL written \\x7f, as current CUE' },
  {
    builtin: /^net\.(IP|IPv4)$/,
    cue: /conflicting values false and true/,
    call: /(?:^|[(".:])0[0-9]/,
    reason: 'an IPv4 part with a leading zero refused, as Go since 1.17',
  },
  {
    builtin: /^list\.UniqueItems$/,
    cue: /conflicting values false and true/,
    call: /\{/,
    reason: 'structs equal whatever the order of their fields (native stricter)',
  },
  {
    builtin: /^time\.(Time|Format)$/,
    cue: /invalid time/,
    call: /[.,][0-9]{10,}|[0-9],[0-9]/,
    reason: 'more than nine fraction digits and a comma before them, as Go since 1.17',
  },
  {
    builtin: /^(list\.(MinItems|MaxItems)|struct\.(MinFields|MaxFields))$/,
    cue: /^pass$/,
    reason: 'a validator called with all its arguments fails with its reason, as current CUE (v0.4 answers false)',
  },
  {
    builtin: /^yaml\.Marshal(Stream)?$/,
    cue: /conflicting values/,
    call: /"(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|t|T|f|F)"/,
    reason: "YAML 1.1's booleans written quoted, as current CUE (v0.4 writes them plain)",
  },
];

const CUE_FAULT = /panic:|nodeContext out of sync|internal error|assertion failed/;
const CONFLICTING_NUMBERS = /conflicting values (-?[0-9.]+(?:E[+-]?[0-9]+)?) and (-?[0-9.]+(?:E[+-]?[0-9]+)?)(?::| \(mismatched)/i;

/** CUE's value and the native one differ only past a double's 15 significant digits (docs: "numbers of more than 15 digits"). */
function withinPrecision(cue: string): boolean {
  const match = CONFLICTING_NUMBERS.exec(cue);
  if (!match) return false;
  const [a, b] = [Number(match[1]), Number(match[2])];
  return Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= 1e-15 * Math.max(Math.abs(a), Math.abs(b));
}

/** What a disagreement is, once the documented differences and CUE's own faults are told apart. */
/** A number of more than 15 significant digits in the call, which the native evaluator holds as a double. */
const BEYOND_A_DOUBLE = /(?<![\w.])-?(?:[0-9]{16,}|[0-9.]{17,})(?![\w.])|[0-9]e\+?(?:1[6-9]|[2-9][0-9]|[0-9]{3})\b|[0-9]e-(?:30[0-9]|3[1-9][0-9])\b/i;

function classify(builtin: string, call: string, outcome: Outcome, cue: string): Outcome {
  if (outcome !== 'native-only' && outcome !== 'cue-only') return outcome;
  if (CUE_FAULT.test(cue)) return 'cue-fault';
  if (withinPrecision(cue) || BEYOND_A_DOUBLE.test(call)) return 'precision';
  if (DOCUMENTED.some((entry) => entry.builtin.test(builtin) && entry.cue.test(cue) && (!entry.call || entry.call.test(call)))) return 'documented';
  return outcome;
}

export interface CallOutcome {
  readonly call: string;
  readonly outcome: Outcome;
  readonly native: string;
  readonly cue: string;
}

export interface BuiltinReport {
  readonly builtin: string;
  readonly inputs: number;
  readonly counts: Readonly<Record<Outcome, number>>;
  /** Every call that did not agree (deferred ones included), for the report. */
  readonly differences: readonly CallOutcome[];
}

/** A value as CUE source, when it is concrete data CUE can read back exactly; undefined otherwise. */
function literalOf(value: Inspected): string | undefined {
  switch (value.kind) {
    case 'null':
      return 'null';
    case 'bool':
      return String(value.value);
    case 'int':
    case 'float':
      return value.text;
    case 'string':
      return /[\ud800-\udfff]/u.test(value.value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')) ? undefined : cueString(value.value);
    case 'list': {
      const elements = value.elements.map(literalOf);
      return elements.every((element) => element !== undefined) ? `[${elements.join(', ')}]` : undefined;
    }
    case 'struct': {
      if (value.error || value.embedded) return undefined;
      const fields = value.fields.filter((field) => field.constraint === '' && !field.definition && !field.hidden);
      const written = fields.map((field) => literalOf(field.value));
      return written.every((field) => field !== undefined)
        ? `{${fields.map((field, index) => `${cueString(field.label)}: ${written[index]}`).join(', ')}}`
        : undefined;
    }
    default:
      return undefined;
  }
}

/** What the native evaluator computes for one call: its value as CUE source, an error, or a fault. */
function nativeValue(header: string, call: string): { literal?: string; error?: string; fault?: string } {
  try {
    const root = inspectFiles([{ name: 'call.cue', text: `${header}out: ${call}\n` }]);
    const out = root.kind === 'struct' ? root.fields.find((field) => field.label === 'out')?.value : undefined;
    if (!out) return { error: 'no value' };
    if (out.kind === 'bottom') return { error: out.message };
    return { literal: literalOf(out) };
  } catch (error) {
    // A CUE error in the call's own text (CueSyntaxError, ScriptError) is an error; anything else is a fault.
    const name = (error as Error).constructor?.name;
    if (name === 'CueSyntaxError' || name === 'ScriptError' || name === 'Unsupported' || name === 'BeyondNative' || name === 'UnsupportedRegexp')
      return { error: (error as Error).message };
    return { fault: `${name}: ${(error as Error).message}` };
  }
}

const header = (builtin: string) => {
  const path = importOf(builtin);
  return path ? `import "${path}"\n` : '';
};

/** The generated calls of one builtin (the same for the same seed). */
export function callsOf(builtin: string, count: number, seed: number): string[] {
  const args = BUILTIN_ARGUMENTS[builtin];
  if (!args) throw new Error(`no domain for ${builtin}`);
  const samples = fc.sample(args, { numRuns: count, seed });
  return [...new Set(samples.map((values) => `${builtin}(${values.join(', ')})`))];
}

/** The policy that passes when a call computes without error, to the native value when there is one. */
const policyOf = (head: string, call: string, literal: string | undefined) => `${head}out: ${call}\n${literal === undefined ? '' : `out: ${literal}\n`}`;

/**
 * Judges the calls of one builtin with CUE v0.4 and natively: each call a policy of its own (CUE
 * v0.4 reports a call's error in every branch of a policy, so calls cannot share one), all judged
 * against one empty descriptor in one batch.
 */
export async function judgeBuiltin(wasm: CueReferenceEvaluator, builtin: string, calls: readonly string[]): Promise<BuiltinReport> {
  const head = header(builtin);
  const values = calls.map((call) => nativeValue(head, call));
  const scripts = calls.map((call, k) => policyOf(head, call, values[k].literal));
  const cue = (
    await wasm.evaluate(
      scripts.map((script, k) => cuePolicy(`${builtin}-${k}`, script)),
      [{ id: 'r', resourceType: 'builtin', descriptor: {}, content: '{}' }],
    )
  ).map(([result]) => result);
  const counts: Record<Outcome, number> = { agreed: 0, deferred: 0, documented: 0, precision: 0, 'cue-fault': 0, 'native-only': 0, 'cue-only': 0, fault: 0 };
  const differences: CallOutcome[] = [];
  calls.forEach((call, k) => {
    const cueSays = cue[k].satisfiesPolicy ? 'pass' : `fail: ${cue[k].errors.join('; ')}`;
    let outcome: Outcome;
    let nativeSays: string;
    if (values[k].fault) {
      outcome = 'fault';
      nativeSays = values[k].fault as string;
    } else {
      const compiled = compileNative(scripts[k]);
      if (!compiled.ok) {
        nativeSays = compiled.unsupported !== undefined ? `unsupported: ${compiled.unsupported}` : `refused: ${compiled.message}`;
        outcome = compiled.unsupported === undefined ? (cue[k].satisfiesPolicy ? 'cue-only' : 'agreed') : compiled.fault ? 'fault' : 'deferred';
      } else {
        const verdict = evaluateNative(compiled.program, {}, { requireConcrete: true, metric: false });
        nativeSays =
          verdict.kind === 'satisfied' ? 'pass' : verdict.kind === 'violated' ? `fail: ${verdict.violations.join('; ')}` : `${verdict.kind}: ${verdict.reason}`;
        if (verdict.kind === 'failed' && verdict.fault) outcome = 'fault';
        else if (verdict.kind === 'deferred') outcome = 'deferred';
        else if ((verdict.kind === 'satisfied') === cue[k].satisfiesPolicy) outcome = 'agreed';
        else outcome = verdict.kind === 'satisfied' ? 'native-only' : 'cue-only';
      }
    }
    outcome = classify(builtin, call, outcome, cueSays);
    counts[outcome]++;
    if (outcome !== 'agreed')
      differences.push({
        call,
        outcome,
        native: `${nativeSays}${values[k].literal ? ` (value ${values[k].literal})` : ''}`.slice(0, 300),
        cue: cueSays.slice(0, 300),
      });
  });
  return { builtin, inputs: calls.length, counts, differences };
}

/** The names of the builtins the native evaluator has: the predeclared functions and every package's. */
export function nativeBuiltins(universe: ReadonlyMap<string, Value>, packages: Iterable<Package>): string[] {
  const predeclared = [...universe.entries()].filter(([, value]) => value.t === 'builtin').map(([name]) => name);
  const members = [...packages].flatMap((entry) => [...entry.members.values()].flatMap((value) => (value.t === 'builtin' ? [value.name] : [])));
  return [...predeclared, ...members];
}

export function formatReport(reports: readonly BuiltinReport[], shown = 3): string {
  const lines = reports.map(({ builtin, inputs, counts }) => {
    const parts = (['deferred', 'documented', 'precision', 'cue-fault', 'cue-only', 'native-only', 'fault'] as const)
      .filter((key) => counts[key] > 0)
      .map((key) => `${key} ${counts[key]}`);
    return `${builtin}: ${inputs} inputs, ${counts.agreed} agreed${parts.length > 0 ? `, ${parts.join(', ')}` : ''}`;
  });
  for (const report of reports) {
    const worst = (['fault', 'native-only', 'cue-only'] as const).flatMap((kind) => report.differences.filter((entry) => entry.outcome === kind));
    for (const difference of worst.slice(0, shown)) {
      lines.push(`  ${difference.outcome} ${difference.call}\n    native: ${difference.native}\n    cue:    ${difference.cue}`);
    }
  }
  return lines.join('\n');
}
