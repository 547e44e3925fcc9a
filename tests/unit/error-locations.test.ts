import { describe, expect, it } from 'vitest';

import { locateCueErrors } from '#lib/governance/evaluation/error-locations';

const yaml = ['id: urn:dp:x', 'owner:', '  email: nope', 'components:', '  - kind: outputport', '  - kind: weird', ''].join('\n');

describe('CUE errors located in the descriptor', () => {
  it("keeps CUE's words and adds descriptor:LINE:COL in CUE's layout of positions, after the policy's own", () => {
    const { errors, locations } = locateCueErrors(
      ['owner.email: invalid value "nope" (out of bound =~"@"):\n    policy.cue:2:9', 'components.1.kind: conflicting values "weird" and "outputport"'],
      yaml,
    );
    expect(errors).toEqual([
      'owner.email: invalid value "nope" (out of bound =~"@"):\n    policy.cue:2:9\n    descriptor:3:3',
      'components.1.kind: conflicting values "weird" and "outputport":\n    descriptor:6:5',
    ]);
    expect(locations).toEqual([
      { path: 'owner.email', line: 3, column: 3 },
      { path: 'components.1.kind', line: 6, column: 5 },
    ]);
  });

  it('locates a missing field at the parent it belongs in, in JSON text too, and leaves messages naming no field as they are', () => {
    const json = '{\n  "id": "urn:dp:x",\n  "owner": {\n    "email": "a@b"\n  }\n}\n';
    const { errors, locations } = locateCueErrors(['owner.team: incomplete value string', 'the script did not finish: too costly'], json);
    expect(errors).toEqual(['owner.team: incomplete value string:\n    descriptor:3:3', 'the script did not finish: too costly']);
    expect(locations).toEqual([{ path: 'owner.team', line: 3, column: 3 }]);
  });
});
