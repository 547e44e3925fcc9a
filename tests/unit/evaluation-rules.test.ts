import { describe, expect, it } from 'vitest';

import { InvalidInput } from '#lib/errors/domain-errors';
import { parseDescriptor } from '#lib/governance/evaluation/descriptor';
import { outcomeOf, overallOutcome } from '#lib/governance/evaluation/outcome';
import { resourceIdentity } from '#lib/governance/evaluation/resource-identity';
import { matchingThreshold } from '#lib/governance/evaluation/thresholds';
import { cronProblem, nextCronRun } from '#lib/governance/policies/cron-expression';
import { allowedMoves, canMove, STATUSES } from '#lib/governance/policies/lifecycle';

/** The field messages of the InvalidInput error `fn` throws. */
function invalidFields(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidInput) return error.errors.map((e) => `${e.path}: ${e.message}`).join('\n');
    throw error;
  }
  throw new Error('expected an InvalidInput error');
}

const pass = { satisfiesPolicy: true, isError: false, errors: [] };
const fail = { satisfiesPolicy: false, isError: false, errors: ['x: conflicting values'] };
const crash = { satisfiesPolicy: false, isError: true, errors: ['engine timed out'] };

describe('outcome rules', () => {
  it.each([
    ['enabled', 'error', pass, 'ok'],
    ['enabled', 'error', fail, 'error'],
    ['enabled', 'warning', fail, 'warning'],
    ['enabled', 'info', fail, 'info'],
    ['grace', 'error', fail, 'warning'],
    ['grace', 'warning', fail, 'warning'],
    ['grace', 'info', fail, 'info'],
    ['draft', 'error', fail, 'error'],
    ['enabled', 'error', crash, 'failed'],
    ['grace', 'info', crash, 'failed'],
    ['grace', 'error', pass, 'ok'],
  ] as const)('%s entity of severity %s: %o -> %s', (status, severity, result, expected) => {
    expect(outcomeOf(result, { status, severity })).toBe(expected);
  });

  it('an active exception waives a non-compliance, never a pass nor a result the engine could not judge', () => {
    expect(outcomeOf(fail, { status: 'enabled', severity: 'error' }, true)).toBe('waived');
    expect(outcomeOf(fail, { status: 'grace', severity: 'info' }, true)).toBe('waived');
    expect(outcomeOf(pass, { status: 'enabled', severity: 'error' }, true)).toBe('ok');
    expect(outcomeOf(crash, { status: 'enabled', severity: 'error' }, true)).toBe('failed');
  });

  it('a waived result passes: worse than ok, better than any finding', () => {
    expect(overallOutcome(['ok', 'waived'])).toEqual({ outcome: 'waived', passed: true });
    expect(overallOutcome(['waived', 'info'])).toEqual({ outcome: 'info', passed: true });
    expect(overallOutcome(['waived', 'error'])).toEqual({ outcome: 'error', passed: false });
  });

  it('a report takes its worst outcome and passes only without error or failed', () => {
    expect(overallOutcome([])).toEqual({ outcome: 'ok', passed: true });
    expect(overallOutcome(['ok', 'info', 'warning'])).toEqual({ outcome: 'warning', passed: true });
    expect(overallOutcome(['ok', 'error', 'warning'])).toEqual({ outcome: 'error', passed: false });
    expect(overallOutcome(['error', 'failed'])).toEqual({ outcome: 'failed', passed: false });
  });
});

describe('lifecycle', () => {
  const legal = new Set(['draft>grace', 'draft>enabled', 'grace>enabled', 'enabled>disabled', 'disabled>enabled', 'enabled>grace']);
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      it(`${from} -> ${to} is ${legal.has(`${from}>${to}`) ? 'allowed' : 'refused'}`, () => {
        expect(canMove(from, to)).toBe(legal.has(`${from}>${to}`));
      });
    }
  }
  it('lists the moves allowed from a status', () => expect(allowedMoves('enabled')).toEqual(['disabled', 'grace']));
});

describe('descriptors', () => {
  it('reads YAML and JSON text and objects alike', () => {
    expect(parseDescriptor('id: dp-1\nversion: 2\n').value).toEqual({ id: 'dp-1', version: 2 });
    expect(parseDescriptor('{"id": "dp-1", "tags": ["a"]}').value).toEqual({ id: 'dp-1', tags: ['a'] });
    // An object has no text of its own to locate errors in: it says so (fromObject), and no locations are given.
    expect(parseDescriptor({ id: 'dp-1' })).toEqual({ value: { id: 'dp-1' }, text: '{"id":"dp-1"}', fromObject: true });
  });

  it('names the line and column of a parse error', () => {
    const parse = () => parseDescriptor('id: dp-1\nname: [unclosed\nother: 1\n');
    expect(parse).toThrow(InvalidInput);
    try {
      parse();
    } catch (error) {
      expect((error as InvalidInput).errors[0].path).toBe('descriptor');
      expect((error as InvalidInput).errors[0].message).toMatch(/at line \d+, column \d+/);
    }
    try {
      parseDescriptor('{"id": "dp-1",\n  "x": }');
    } catch (error) {
      expect((error as InvalidInput).errors[0].message).toMatch(/line 2, column \d+/);
    }
  });

  it('refuses a descriptor that is not an object, and duplicate keys', () => {
    expect(invalidFields(() => parseDescriptor('- a\n- b\n'))).toMatch(/^descriptor: must be a YAML or JSON object/);
    expect(() => parseDescriptor('id: 1\nid: 2\n')).toThrow(InvalidInput);
  });
});

describe('resource identity', () => {
  const configured = { resourceNameField: 'dataProduct.id', resourceDisplayNameFields: ['name', 'domain'], resourceFilterField: 'version' };
  const none = { resourceNameField: null, resourceDisplayNameFields: [], resourceFilterField: null };
  const descriptor = { dataProduct: { id: 'urn:dp:1' }, name: 'Sales', domain: 'finance', version: '1.2.0' };

  it('is read from the fields of the descriptor configuration (dotted paths too)', () => {
    expect(resourceIdentity(configured, descriptor, {})).toEqual({ id: 'urn:dp:1', displayName: 'Sales finance', version: '1.2.0' });
  });

  it('refuses caller values that disagree with the descriptor, and a missing id field', () => {
    expect(invalidFields(() => resourceIdentity(configured, descriptor, { id: 'other' }))).toMatch(/^id: id "other" does not match/);
    expect(invalidFields(() => resourceIdentity(configured, { name: 'x' }, {}))).toMatch(/^descriptor: .*no "dataProduct.id" field/);
    expect(resourceIdentity(configured, descriptor, { id: 'urn:dp:1', version: '1.2.0' }).id).toBe('urn:dp:1');
  });

  it('comes from the caller when the type has no descriptor configuration, the id being required', () => {
    expect(resourceIdentity(none, descriptor, { id: 'x', version: '3' })).toEqual({ id: 'x', displayName: null, version: '3' });
    expect(invalidFields(() => resourceIdentity(none, descriptor, {}))).toMatch(/^id: id is required/);
  });
});

describe('metric thresholds', () => {
  const ranges = [
    { label: 'low', color: 'red', max: 49.99 },
    { label: 'medium', color: 'yellow', min: 50, max: 80 },
    { label: 'high', color: 'green', min: 80 },
  ];
  it('matches the first range holding the value, bounds included', () => {
    expect(matchingThreshold(10, ranges)?.label).toBe('low');
    expect(matchingThreshold(50, ranges)?.label).toBe('medium');
    expect(matchingThreshold(80, ranges)?.label).toBe('medium');
    expect(matchingThreshold(99, ranges)?.label).toBe('high');
    expect(matchingThreshold(49.995, ranges)).toBeUndefined();
  });
});

describe('cron expressions', () => {
  it('accepts 5 and 6 fields and Quartz forms, and says why a bad one is refused', () => {
    expect(cronProblem('*/5 * * * *')).toBeUndefined();
    expect(cronProblem('0 0/15 * * * ?')).toBeUndefined();
    expect(cronProblem('0 0 12 ? * MON-FRI')).toBeUndefined();
    expect(cronProblem('61 * * * *')).toMatch(/minute/);
    expect(cronProblem('every day')).toMatch(/five, six, or seven/);
  });
  const next = (expression: string, from: string, timeZone?: string) => nextCronRun(expression, new Date(from), timeZone)?.toISOString();

  it('gives the next run in UTC by default', () => {
    expect(next('0 30 9 * * *', '2026-01-01T10:00:00Z')).toBe('2026-01-02T09:30:00.000Z');
    expect(next('*/15 * * * *', '2026-01-01T10:07:30Z')).toBe('2026-01-01T10:15:00.000Z');
    expect(next('0 0/15 * * * ?', '2026-01-01T10:15:00Z')).toBe('2026-01-01T10:30:00.000Z');
  });

  it('handles month ends: the last day (L), the 31st only in months that have one, leap years', () => {
    expect(next('0 0 12 L * ?', '2027-02-01T00:00:00Z')).toBe('2027-02-28T12:00:00.000Z');
    expect(next('0 0 12 L * ?', '2028-02-01T00:00:00Z')).toBe('2028-02-29T12:00:00.000Z');
    expect(next('0 0 31 * *', '2026-04-01T00:00:00Z')).toBe('2026-05-31T00:00:00.000Z');
    expect(next('0 0 1 * *', '2026-12-31T23:59:00Z')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('reads day-of-week names (no off-by-one), weekday ranges and the n-th weekday of a month', () => {
    // 2026-11-20 is a Friday.
    expect(next('0 0 9 ? * MON-FRI', '2026-11-20T10:00:00Z')).toBe('2026-11-23T09:00:00.000Z');
    expect(next('0 0 9 ? * MON-FRI', '2026-11-20T08:00:00Z')).toBe('2026-11-20T09:00:00.000Z');
    expect(next('0 6 * * SUN', '2026-11-20T00:00:00Z')).toBe('2026-11-22T06:00:00.000Z');
    expect(next('0 0 8 ? * MON#1', '2026-11-20T00:00:00Z')).toBe('2026-12-07T08:00:00.000Z');
  });

  it('reads the expression in cron-policies.time-zone, across a daylight-saving change', () => {
    expect(next('0 0 6 * * ?', '2026-07-01T00:00:00Z', 'Europe/Rome')).toBe('2026-07-01T04:00:00.000Z');
    expect(next('0 0 6 * * ?', '2026-12-01T00:00:00Z', 'Europe/Rome')).toBe('2026-12-01T05:00:00.000Z');
  });
});
