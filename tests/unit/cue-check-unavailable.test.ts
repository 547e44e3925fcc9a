import { describe, expect, it, vi } from 'vitest';
import { CueRunFailure } from '../../lib/governance/engines/cue/cue-runner';
import { checkCueScript } from '../../lib/governance/engines/engines';
import { ServiceUnavailable } from '../../lib/http/problems';

vi.mock('../../lib/governance/engines/cue/cue-engine', () => ({
  getCueEngine: async () => ({
    check: async (script: string) => {
      if (script === 'hang') throw new CueRunFailure('the CUE run took longer than 20000 ms');
      return { ok: true };
    },
  }),
}));

describe('checking a CUE script when saving a policy', () => {
  it('answers 503 when CUE itself gives no answer, not a 400 blaming the script', async () => {
    await expect(checkCueScript('owner: string')).resolves.toEqual({ ok: true });
    const failure = await checkCueScript('hang').catch((error) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailable);
    expect(failure.status).toBe(503);
    expect(failure.message).toBe('The CUE engine could not check cueScript: the CUE run took longer than 20000 ms');
  });
});
