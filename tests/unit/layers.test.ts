import { createRequire } from 'node:module';
import path from 'node:path';

import { cruise, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

// The rule that keeps the house's direction (.dependency-cruiser.cjs, run by `npm run lint`): it
// fails on an upward import and on a circle, and lets a downward import through.

const ruleSet = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as IConfiguration;
const FIXTURE = path.join(import.meta.dirname, '../fixtures/layers');

async function violationsIn(...files: string[]) {
  const result = await cruise(files, { ruleSet, validate: true, baseDir: FIXTURE, tsPreCompilationDeps: true });
  if (typeof result.output === 'string') throw new Error('expected the cruise result, got text');
  return result.output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`);
}

describe('the layer rule', () => {
  it('fails an upward import, naming the layer and both files', async () => {
    expect(await violationsIn('lib/db/page.ts')).toEqual(['layers: plumbing imports nothing above it: lib/db/page.ts -> lib/http/pagination.ts']);
  });

  it('fails a circle', async () => {
    expect(await violationsIn('lib/governance/evaluation/a.ts')).toEqual(['no-circular: lib/governance/evaluation/a.ts -> lib/governance/evaluation/b.ts']);
  });

  it('lets a downward import through', async () => {
    expect(await violationsIn('lib/governance/policies/entity.ts')).toEqual([]);
  });
});

describe('wired, not pulled', () => {
  it('fails a service that reads the process settings itself', async () => {
    expect(await violationsIn('lib/governance/exceptions/exception-service.ts')).toEqual([
      'wired-not-pulled: lib/governance/exceptions/exception-service.ts -> lib/settings/shared-settings.ts',
    ]);
  });

  it('lets a composition module read them', async () => {
    expect(await violationsIn('lib/governance/composition.ts')).toEqual([]);
  });
});

describe("the native CUE evaluator's stages", () => {
  const NATIVE = 'packages/cue/src';

  it('lets a circle inside one stage through (the evaluation is one mutually recursive unit)', async () => {
    expect(await violationsIn(`${NATIVE}/evaluation/vertex.ts`)).toEqual([]);
  });

  it('fails a circle through another stage, and the upward import that closes it', async () => {
    expect(await violationsIn(`${NATIVE}/syntax/parser.ts`)).toEqual([
      `native CUE: no circle between stages: ${NATIVE}/evaluation/values.ts -> ${NATIVE}/syntax/parser.ts`,
      `native CUE: syntax imports nothing above it: ${NATIVE}/syntax/parser.ts -> ${NATIVE}/evaluation/values.ts`,
    ]);
  });

  it('fails the evaluation importing the compiler, and the compiler importing a builtin', async () => {
    expect(await violationsIn(`${NATIVE}/evaluation/calls.ts`)).toEqual([
      `native CUE: evaluation imports nothing above it: ${NATIVE}/evaluation/calls.ts -> ${NATIVE}/compile/program.ts`,
      `native CUE: the compiler imports no builtin: ${NATIVE}/compile/program.ts -> ${NATIVE}/pkg/strings.ts`,
    ]);
  });

  it('fails the package reaching into the repository, and the repository reaching a file of the package by its path', async () => {
    expect(await violationsIn(`${NATIVE}/internal/pages.ts`)).toEqual([
      `native CUE: a package of its own: ${NATIVE}/internal/pages.ts -> lib/http/pagination.ts`,
    ]);
    expect(await violationsIn('lib/mcp/tool.ts')).toEqual([
      `native CUE: imported by its name, not by a path: lib/mcp/tool.ts -> ${NATIVE}/syntax/scanner.ts`,
      `native CUE: imported by its name, through its entry points: lib/mcp/tool.ts -> ${NATIVE}/syntax/scanner.ts`,
    ]);
  });
});
