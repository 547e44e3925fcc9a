/**
 * A policy (or metric) compiled once and evaluated against descriptors, with the verdict contract of
 * the reference evaluator (docs/cue-policies.md): requireConcrete = `cue vet -c`, else conflicts only;
 * a required field (`!`) missing is a violation in both.
 */
import { compileFile, type Program, ScriptError, Unsupported } from './compile/program';
import { BudgetExceeded, Context } from './evaluation/context';
import { defaultOf } from './evaluation/expressions';
import { formatValue, isBottom, type Value } from './evaluation/values';
import { Vertex } from './evaluation/vertex';
import { collectFindings, type Finding, formatFinding, isSettled } from './export/verdict';
import { BeyondNative } from './internal/beyond-native';
import { registerStandardLibrary } from './pkg/packages';
import type { StructLit } from './syntax/ast';
import { parseExpression } from './syntax/parser';

// The builtins reach the evaluator through its registry (evaluation/builtins-registry.ts).
registerStandardLibrary();

/** A compiled policy: parsed, references checked, its constant part checked once. Opaque. */
export interface NativeProgram {
  readonly script: string;
  readonly program: Program;
  /** Top-level definitions and hidden fields the save check settled: not walked again per descriptor. */
  readonly settled: ReadonlySet<string>;
}

export type NativeCompile =
  | { readonly ok: true; readonly program: NativeProgram }
  /**
   * The script uses something the native evaluator does not do: the reference evaluator evaluates it.
   * `fault`: an internal exception, not a CUE error (counted by the differential tests, which fail on any).
   */
  | { readonly ok: false; readonly unsupported: string; readonly fault?: true }
  /** The script is wrong whatever the descriptor (syntax, unknown reference or package, constant conflict, not a struct). */
  | { readonly ok: false; readonly unsupported?: undefined; readonly message: string; readonly line?: number; readonly column?: number };

/**
 * The native evaluator's answer for one descriptor: the policy is satisfied (a metric with its value), violated
 * (the violations as `cue vet` words them), or could not be judged (a fault, the step budget exhausted): never a pass.
 */
export type NativeVerdict =
  | { readonly kind: 'satisfied'; readonly value?: number }
  | { readonly kind: 'violated'; readonly violations: readonly string[] }
  | { readonly kind: 'failed'; readonly reason: string; readonly fault?: true }
  /** Only CUE itself can judge this pair (BeyondNative): the reference evaluator does. */
  | { readonly kind: 'deferred'; readonly reason: string };

export interface NativeOptions {
  readonly requireConcrete: boolean;
  /** A metric: its top-level `value` must be a finite number, returned as the result's value. */
  readonly metric: boolean;
  /** The evaluation budget (steps); past it the result is a failure, never a pass. */
  readonly maxSteps?: number;
}

const DEFAULT_MAX_STEPS = 1_000_000;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
// Positions on line 0 are not the author's: messages leave them out.
const METRIC_VALUE = parseExpression('{value: number}', { offset: 0, line: 0, column: 0 }) as StructLit;

const NOT_A_STRUCT = 'the script must be a struct (fields at its top level), not a list or a single value';

/** The root of one evaluation: the policy unified with a descriptor (or with nothing, for the save check). */
function rootOf(program: Program, ctx: Context, descriptor: unknown, metric: boolean): Vertex {
  const root = new Vertex(ctx, '', undefined);
  // The descriptor first, as CUE unifies it: its fields come first in messages, in its own order.
  if (descriptor !== undefined) root.addConjunct({ expr: { type: 'data', value: descriptor }, env: {}, closed: false });
  root.addConjunct({ expr: program.lit, env: program.env, closed: false });
  if (metric) root.addConjunct({ expr: METRIC_VALUE, env: {}, closed: false });
  return root;
}

function notStruct(value: Value): string {
  // Formatting evaluates nothing: the elements shown are evaluated first.
  if (value instanceof Vertex) for (const arc of value.arcs.values()) arc.evaluate();
  return `${NOT_A_STRUCT}: conflicting values ${formatValue(value)} and {...}`;
}

/**
 * Compiles a script and checks what does not depend on a descriptor: syntax, imports, references,
 * and errors of the script evaluated alone that read nothing a descriptor could change (an open
 * struct or list, a field not there yet): a conflict between constants is refused, a list built
 * from descriptor data that conflicts only while that data is absent is not.
 */
export function compileNative(script: string, maxSteps = DEFAULT_MAX_STEPS): NativeCompile {
  let program: Program;
  try {
    // CUE gets the policy as UTF-8, in which a lone surrogate is U+FFFD.
    program = compileFile(script.replace(LONE_SURROGATES, '\ufffd'));
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, unsupported: error.message };
    if (error instanceof ScriptError) return { ok: false, message: error.message, ...(error.at ? { line: error.at.line, column: error.at.column } : {}) };
    return { ok: false, unsupported: `the native evaluator could not compile it: ${(error as Error).message}`, fault: true };
  }
  try {
    const ctx = new Context(maxSteps, 100, true);
    const root = rootOf(program, ctx, undefined, false);
    const value = root.evaluate();
    if (root.isList) return { ok: false, message: notStruct(root), line: 1, column: 1 };
    if (value !== root) {
      if (isBottom(value)) {
        if (!root.tainted && value.code !== 'incomplete') return refusal({ path: [], message: value.message, at: value.at, tainted: false });
      } else if (!(value.t === 'top')) return { ok: false, message: notStruct(value), line: 1, column: 1 };
    }
    const [conflict] = collectFindings(root).conflicts.filter((finding) => !finding.tainted);
    if (conflict) return refusal(conflict);
    const settled = new Set([...root.arcs.values()].filter((arc) => (arc.definition || arc.hidden) && isSettled(arc)).map((arc) => arc.key));
    return { ok: true, program: { script, program, settled } };
  } catch (error) {
    if (error instanceof BudgetExceeded) return { ok: false, unsupported: `the native evaluator did not finish checking it: ${error.message}` };
    if (error instanceof BeyondNative) return { ok: false, unsupported: error.message };
    return { ok: false, unsupported: `the native evaluator failed checking it: ${(error as Error).message}`, fault: true };
  }
}

function refusal(finding: Finding): NativeCompile {
  const [at] = finding.at;
  return { ok: false, message: formatFinding({ ...finding, at: [] }, 'policy.cue'), ...(at ? { line: at.line, column: at.column } : {}) };
}

const failure = (reason: string): NativeVerdict => ({ kind: 'failed', reason });
const violated = (violations: readonly string[]): NativeVerdict => ({ kind: 'violated', violations });

const unreadable = new WeakMap<object, NativeVerdict | null>();

/**
 * What CUE cannot read of a descriptor, which reaches it as JSON text read by its own scanner (proven
 * in tests/unit/cue-native-differential.test.ts): a byte order mark anywhere fails the evaluation
 * (`illegal byte order mark`); a string with a lone surrogate is an invalid string at its field. Kept
 * per descriptor object, as every policy reads the same.
 */
function unreadableIn(descriptor: unknown): NativeVerdict | undefined {
  if (descriptor === null || typeof descriptor !== 'object') return typeof descriptor === 'string' ? unreadableText(descriptor, []) : undefined;
  const kept = unreadable.get(descriptor);
  if (kept !== undefined) return kept ?? undefined;
  let found: NativeVerdict | undefined;
  // One path for the whole walk, read only for what is found (a descriptor has thousands of nodes).
  const path: string[] = [];
  const visit = (value: unknown): void => {
    if (found) return;
    if (typeof value === 'string') found = unreadableText(value, path);
    else if (Array.isArray(value)) {
      for (let index = 0; index < value.length && !found; index++) {
        path.push(String(index));
        visit(value[index]);
        path.pop();
      }
    } else if (value !== null && typeof value === 'object') {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        found ??= unreadableText(key, path);
        path.push(key);
        visit((value as Record<string, unknown>)[key]);
        path.pop();
        if (found) return;
      }
    }
  };
  visit(descriptor);
  unreadable.set(descriptor, found ?? null);
  return found;
}

function unreadableText(text: string, path: string[]): NativeVerdict | undefined {
  if (text.includes('\ufeff')) return failure('illegal byte order mark');
  if (LONE_SURROGATE.test(text)) return violated([`${path.length > 0 ? `${path.join('.')}: ` : ''}invalid string: unmatched surrogate pair`]);
  return undefined;
}

/** Never throws: a fault or an exhausted budget is a `failed` verdict. */
export function evaluateNative(compiled: NativeProgram, descriptor: unknown, options: NativeOptions): NativeVerdict {
  const file = options.metric ? 'metric.cue' : 'policy.cue';
  const cannotRead = unreadableIn(descriptor);
  if (cannotRead) return cannotRead;
  try {
    const ctx = new Context(options.maxSteps ?? DEFAULT_MAX_STEPS, 100, false, true);
    const root = rootOf(compiled.program, ctx, descriptor, options.metric);
    const value = root.evaluate();
    if (value !== root && !(isBottom(value) && root.isStruct)) {
      if (isBottom(value)) return violated([formatFinding({ path: [], message: value.message, at: value.at, tainted: false }, file)]);
      return failure(notStruct(value));
    }
    const findings = collectFindings(root, compiled.settled);
    const violations =
      findings.conflicts.length > 0
        ? [...findings.conflicts, ...findings.missing]
        : options.requireConcrete
          ? [...findings.missing, ...findings.incomplete]
          : findings.missing;
    if (violations.length > 0) return violated(violations.map((finding) => formatFinding(finding, file)));
    if (!options.metric) return { kind: 'satisfied' };
    // A metric with a default (`value: *score | 0`) is its default, as CUE exports it.
    const evaluated = root.arcs.get('value')?.evaluate();
    const metric = evaluated && defaultOf(evaluated);
    if (metric?.t === 'num' && Number.isFinite(metric.v)) return { kind: 'satisfied', value: metric.v };
    return violated([`value: incomplete value ${metric ? formatValue(metric) : 'number'}`]);
  } catch (error) {
    if (error instanceof BudgetExceeded) return failure(error.message);
    if (error instanceof BeyondNative) return { kind: 'deferred', reason: error.message };
    return { kind: 'failed', reason: `the native evaluator failed: ${(error as Error).message}`, fault: true };
  }
}
