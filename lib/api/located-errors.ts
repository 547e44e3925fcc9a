import { cueErrorPath, type DescriptorPosition, locateCuePath } from '#lib/governance/evaluation/descriptor-locator';

import type { CheckResult } from './check-results';

/** One error of a result with the place in the descriptor its CUE path names (line 1 when none). */
export interface LocatedError {
  readonly message: string;
  readonly position: DescriptorPosition;
}

/** The errors of a result, each located in the descriptor's text; a failing result without errors gets one naming its outcome. */
export function locatedErrors(result: CheckResult): LocatedError[] {
  const messages = result.errors.length > 0 ? result.errors : [`${result.policy.name}: ${result.outcome}`];
  return messages.map((message) => ({
    message,
    position: result.descriptor.text === null ? { line: 1, column: 1, exact: false } : locateCuePath(result.descriptor.text, cueErrorPath(message)),
  }));
}
