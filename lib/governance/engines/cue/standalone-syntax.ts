import { formatCueMessage, parseCueMessages } from './cue-messages';
import type { CueRunner } from './cue-runner';
import type { PolicySource } from './policy-source';

export interface StandaloneProblem {
  readonly message: string;
  /** `message` with its positions in the script, in CUE's layout. */
  readonly formatted: string;
  readonly line?: number;
  readonly column?: number;
}

/**
 * Scripts whose brackets the scanner cannot vouch for (PolicySource.selfContained is false) are
 * first run by CUE as they are, on their own: wrapped in a struct, `a: 1 }\nb: {` would compile,
 * alone it does not. Returns CUE's messages when the script fails on its own, else none.
 * Rejects with a CueRunFailure when CUE gave no answer.
 */
export async function standaloneProblems(runner: CueRunner, source: PolicySource, signal?: AbortSignal): Promise<StandaloneProblem[]> {
  const file = 'policy.cue';
  const output = await runner.run({ args: ['eval', file], files: { [file]: source.script } }, signal);
  if (output.code === 0) return [];
  const messages = parseCueMessages(output.stderr);
  if (messages.length === 0) return [{ message: `cue exited with code ${output.code}`, formatted: `cue exited with code ${output.code}` }];
  return messages.map(({ text, positions }) => {
    const own = positions.filter((position) => position.file === file);
    return {
      message: text,
      formatted: formatCueMessage(
        text,
        own.map((position) => `${file}:${position.line}:${position.column}`),
      ),
      ...(own[0] ? { line: own[0].line, column: own[0].column } : {}),
    };
  });
}
