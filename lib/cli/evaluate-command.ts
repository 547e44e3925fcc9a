import { readFile } from 'node:fs/promises';

import type { CheckRun } from '#lib/api/check-results';
import { checkDescriptor } from '#lib/api/descriptor-check';

import { type ApiAccess, ApiClient } from './api-client';
import { UsageError } from './usage-error';

export interface EvaluateOptions extends ApiAccess {
  readonly type: string;
  readonly env: string;
  /** The resource's id, for a type without descriptor configuration. */
  readonly id?: string;
  readonly labels?: string[];
  /** How long to wait for the report to end, in seconds. */
  readonly timeout: number;
  /** How long Evaluate itself may hold the call (`Prefer: wait`, at most 25 s) before cgp polls. */
  readonly wait: number;
}

/** `cgp evaluate`: the deploy gate, on the descriptor file given. */
export async function runEvaluate(descriptorFile: string, options: EvaluateOptions): Promise<CheckRun> {
  let text: string;
  try {
    text = await readFile(descriptorFile, 'utf8');
  } catch (error) {
    throw new UsageError(`${descriptorFile}: could not be read: ${(error as Error).message}`);
  }
  return checkDescriptor(new ApiClient(options), { ...options, text, file: descriptorFile });
}
