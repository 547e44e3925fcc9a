import { readFile } from 'node:fs/promises';

import type { CheckResult, CheckRun } from '#lib/api/check-results';
import { InvalidInput } from '#lib/errors/domain-errors';
import type { EngineEntity, EngineResource, EngineResult } from '#lib/governance/engines/engine';
import { checkCueScript, evaluateEntities } from '#lib/governance/engines/engines';
import { parseDescriptor } from '#lib/governance/evaluation/descriptor';
import { outcomeOf, overallOutcome } from '#lib/governance/evaluation/outcome';
import { matchingThreshold } from '#lib/governance/evaluation/thresholds';

import type { Descriptor } from '../../drizzle/schema/json-columns';
import { descriptorFilesOf, policyFilesOf } from './file-arguments';
import { type PolicyFile, type PolicyMetadata, readPolicyFile } from './policy-file';
import { progressBar } from './progress';
import { UsageError } from './usage-error';

/** Metadata given as flags: each one wins over the policy files'. */
export type MetadataOverrides = Partial<Pick<PolicyMetadata, 'kind' | 'severity' | 'requireConcrete' | 'thresholds'>>;

/** Descriptors are evaluated this many at a time, so the progress bar moves. */
const CHUNK = 250;

interface LoadedDescriptor {
  readonly file: string;
  readonly text: string | null;
  readonly parsed: Descriptor | Error;
}

/** Why a descriptor could not be read, in one line naming the problem (the reader's 400 lists the fields). */
function readProblem(error: unknown): Error {
  if (error instanceof InvalidInput) return new Error(error.errors.map((e) => `${e.path}: ${e.message}`).join('; ') || error.message);
  return error as Error;
}

async function loadDescriptor(file: string): Promise<LoadedDescriptor> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { file, text: null, parsed: new Error(`could not be read: ${(error as Error).message}`) };
  }
  try {
    return { file, text, parsed: parseDescriptor(text) };
  } catch (error) {
    return { file, text, parsed: readProblem(error) };
  }
}

/** The policy as the engines take it, after its script compiled (a script that does not is a usage error, exit 2). */
async function engineEntityOf(policy: PolicyFile): Promise<EngineEntity> {
  const check = await checkCueScript(policy.script);
  if (!check.ok) {
    const where = check.line === undefined ? '' : `:${check.line}:${check.column ?? 1}`;
    throw new UsageError(`${policy.path}${where}: does not compile: ${check.message}`);
  }
  const { kind, requireConcrete = true } = policy.metadata;
  return { id: policy.path, version: 1, kind, engine: 'cue', cueScript: policy.script, requireConcrete, remoteEngineUrl: null, evaluator: check.evaluator };
}

/** CUE names the script `policy.cue` (`metric.cue`) in its positions: the file's own path, whose lines they are. */
const inPolicyFile = (error: string, policy: PolicyFile) => error.replace(/(?<=^|\s)(?:policy|metric)\.cue:(?=\d+:\d+)/gm, `${policy.path}:`);

/**
 * `cgp test`: every policy file against every descriptor, locally, through the engine code the
 * functions run (the native evaluator, CUE v0.4 in WebAssembly for what it does not have). A
 * descriptor that does not parse is a `failed` result, as the platform records it.
 */
export async function runTest(policyArgument: string, descriptorArguments: readonly string[], overrides: MetadataOverrides): Promise<CheckRun> {
  const policies = await Promise.all((await policyFilesOf(policyArgument)).map(readPolicyFile));
  for (const policy of policies) Object.assign(policy.metadata, Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)));
  const entities = await Promise.all(policies.map(engineEntityOf));
  const descriptors = await Promise.all((await descriptorFilesOf(descriptorArguments)).map(loadDescriptor));

  const usable = descriptors.flatMap((descriptor, index) => (descriptor.parsed instanceof Error ? [] : [{ index, descriptor: descriptor.parsed }]));
  const answers: EngineResult[][] = entities.map(() => []);
  const progress = progressBar('cgp test', usable.length);
  for (let start = 0; start < usable.length; start += CHUNK) {
    const chunk = usable.slice(start, start + CHUNK);
    const resources: EngineResource[] = chunk.map(({ index, descriptor }) => ({
      id: descriptors[index].file,
      resourceType: policies[0].metadata.resourceType ?? 'local',
      descriptor: descriptor.value,
      content: descriptor.text,
    }));
    const rows = await evaluateEntities(entities, resources);
    rows.forEach((row, e) => answers[e].push(...row));
    progress.tick(Math.min(start + CHUNK, usable.length));
  }
  progress.end();

  const results: CheckResult[] = policies.flatMap((policy, e) => {
    let next = 0;
    const { kind, severity = 'error', thresholds = [], name } = policy.metadata;
    return descriptors.map((descriptor) => {
      const result: EngineResult =
        descriptor.parsed instanceof Error ? { satisfiesPolicy: false, isError: true, errors: [descriptor.parsed.message] } : answers[e][next++];
      const threshold = kind === 'metric' && result.value !== undefined ? matchingThreshold(result.value, thresholds) : undefined;
      return {
        policy: { ref: policy.path, name: name ?? policy.path, kind, severity },
        descriptor: { file: descriptor.file, text: descriptor.text },
        outcome: outcomeOf(result, { status: 'enabled', severity }),
        errors: result.errors.map((error) => inPolicyFile(error, policy)),
        ...(result.value === undefined ? {} : { value: result.value }),
        ...(threshold ? { threshold } : {}),
      };
    });
  });
  return { results, ...overallOutcome(results.map((result) => result.outcome)) };
}
