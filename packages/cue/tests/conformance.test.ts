import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type Inspected, inspectFiles } from '@cgp/cue';
import { type File, parseFile } from '@cgp/cue/syntax';
import { afterAll, describe, expect, it } from 'vitest';

import { checkAssertion, type Failure } from './support/assertion-checks';
import { CONFORMANCE, FOLDERS } from './support/conformance-files';
import { type Assertion, assertionsOf } from './support/test-attributes';
import { cueInputsOf, txtarFilesUnder } from './support/txtar';

/**
 * CUE's own conformance files (../shared/cue-conformance, read where they are, never copied), evaluated by
 * the native evaluator and checked against their inline `@test` assertions. Counts per folder must not
 * fall below the committed floors. CUE_CONFORMANCE_VERBOSE=1 prints each failing file's reasons;
 * CUE_CONFORMANCE_WRITE_FLOORS=1 (npm run conformance:floors) sets the floors to today's counts.
 * A failing file is reported as out of scope, with its reason, when it needs what the evaluator does not
 * take on by design (docs/cue-policies.md): an `@experiment`, a module's own packages, or a standard
 * package it does not have. The percentage is over the files in scope.
 */
const FLOORS_FILE = path.resolve(import.meta.dirname, 'support/conformance-floors.json');
const REPORT_FILE = process.env.CUE_CONFORMANCE_REPORT ?? path.join(tmpdir(), 'cue-conformance-report.txt');
/** Evaluation steps per file: a file that would make the evaluator loop ends as an error instead. */
const MAX_STEPS = 2_000_000;

interface FileResult {
  readonly name: string;
  /** Why a failing file is out of the evaluator's scope, when it is. */
  readonly outOfScope?: string;
  /** Files without a checkable assertion (golden-file mode, or only directives the runner does not check) are not counted. */
  readonly counted: boolean;
  readonly assertions: number;
  readonly failures: readonly Failure[];
  readonly milliseconds: number;
}

const EXPERIMENT = /^@experiment\((\w+)\)/m;
const MISSING_PACKAGE = /package "([^"]+)" (?:not found|is not in the native evaluator)/;

/** The reason a failing file is out of scope, or undefined when it is in scope. */
function outOfScope(texts: readonly string[], failures: readonly Failure[]): string | undefined {
  if (failures.length === 0) return undefined;
  const experiment = texts.map((text) => EXPERIMENT.exec(text)?.[1]).find(Boolean);
  if (experiment) return `turns on the ${experiment} experiment`;
  const missing = failures.map((failure) => MISSING_PACKAGE.exec(failure.detail)?.[1]).find(Boolean);
  return missing ? `imports ${missing}` : undefined;
}

/** Evaluates one archive and checks its assertions; a file that does not parse or evaluate fails all of them. */
function runArchive(folder: string, name: string): FileResult {
  const started = performance.now();
  const inputs = cueInputsOf(readFileSync(path.join(CONFORMANCE, folder, name), 'utf8'));
  const texts = inputs.map((input) => input.text);
  const result = (counted: boolean, assertions: number, failures: Failure[]) => ({
    name,
    counted,
    assertions,
    failures,
    outOfScope: outOfScope(texts, failures),
    milliseconds: performance.now() - started,
  });
  let parsed: File[];
  try {
    parsed = inputs.map((input) => parseFile(input.text));
  } catch (error) {
    return result(true, 1, [{ category: 'does not parse', detail: (error as Error).message }]);
  }
  const assertions: Assertion[] = parsed.flatMap(assertionsOf);
  if (assertions.length === 0) return result(false, 0, []);
  let root: Inspected;
  try {
    root = inspectFiles(inputs, 64, MAX_STEPS);
  } catch (error) {
    const message = (error as Error).message;
    return result(true, assertions.length, [
      { category: `throws: ${message.replace(/\(line \d+, column \d+\)|"[^"]*"|\d+/g, '…').slice(0, 60)}`, detail: message },
    ]);
  }
  const failures = assertions.flatMap((assertion) => {
    try {
      const failure = checkAssertion(root, assertion.path, assertion.attribute);
      // CUE's known-wrong answer not reproduced, and the answer its authors expect given instead: a pass.
      if (failure && assertion.correct?.every((correct) => !checkAssertion(root, assertion.path, correct))) return [];
      return failure ? [{ category: failure.category, detail: `line ${assertion.line} @test(${assertion.attribute.directive}): ${failure.detail}` }] : [];
    } catch (error) {
      return [{ category: 'check throws', detail: `line ${assertion.line}: ${(error as Error).message}` }];
    }
  });
  return result(true, assertions.length, failures);
}

/** A file that threw or did not parse passes none of its assertions; otherwise each failure is one assertion. */
const assertionsPassed = (file: FileResult) =>
  file.failures.some((failure) => failure.category.startsWith('throws') || failure.category === 'does not parse') ? 0 : file.assertions - file.failures.length;

const results = new Map<string, FileResult[]>();

describe.skipIf(!existsSync(CONFORMANCE))("CUE's conformance files, evaluated natively", () => {
  const floors = JSON.parse(readFileSync(FLOORS_FILE, 'utf8')) as Record<string, number>;

  it.each(FOLDERS)('%s: no fewer files pass than the floor', (folder) => {
    const files = txtarFilesUnder(path.join(CONFORMANCE, folder)).map((name) => runArchive(folder, name));
    results.set(folder, files);
    const passed = files.filter((file) => file.counted && file.failures.length === 0).length;
    if (process.env.CUE_CONFORMANCE_WRITE_FLOORS !== '1') expect(passed, `${folder}: files passed`).toBeGreaterThanOrEqual(floors[folder] ?? 0);
  });

  afterAll(() => {
    const rows = FOLDERS.flatMap((folder) => {
      const files = results.get(folder);
      if (!files) return [];
      const counted = files.filter((file) => file.counted);
      const passed = counted.filter((file) => file.failures.length === 0).length;
      const assertions = counted.reduce((sum, file) => sum + file.assertions, 0);
      const assertionsOk = counted.reduce((sum, file) => sum + assertionsPassed(file), 0);
      const outside = counted.filter((file) => file.outOfScope).length;
      return { folder, passed, counted: counted.length, inScope: counted.length - outside, uncounted: files.length - counted.length, assertionsOk, assertions };
    });
    const table = rows.map((row) => {
      const floor = floors[row.folder] ?? 0;
      const hint = row.passed > floor ? `  (floor ${floor}: raise it with npm run conformance:floors)` : '';
      const percent = row.inScope ? Math.round((100 * row.passed) / row.inScope) : 0;
      const columns = [
        row.folder.padEnd(15),
        `${row.passed}/${row.counted}`.padStart(8),
        `${row.passed}/${row.inScope}`.padStart(8),
        `${percent}%`.padStart(5),
        `${row.assertionsOk}/${row.assertions}`.padStart(10),
      ];
      return `${columns.join(' ')}${row.uncounted ? `  ${row.uncounted} without assertions` : ''}${hint}`;
    });
    const outside = FOLDERS.flatMap((folder) =>
      (results.get(folder) ?? []).filter((file) => file.outOfScope).map((file) => `  ${folder}/${file.name}: ${file.outOfScope}`),
    );
    const all = [...results.values()].flat();
    const categories = new Map<string, number>();
    for (const failure of all.flatMap((file) => file.failures)) categories.set(failure.category, (categories.get(failure.category) ?? 0) + 1);
    const commonest = [...categories]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([category, count]) => `${String(count).padStart(5)}  ${category}`);
    const slowest = [...all].sort((a, b) => b.milliseconds - a.milliseconds)[0];
    console.log(
      [
        'CUE conformance (files passed / files with assertions, files passed / files in scope, assertions passed / assertions; files without inline assertions are not counted):',
        `${'folder'.padEnd(15)} ${'files'.padStart(8)} ${'in scope'.padStart(8)} ${'%'.padStart(5)} ${'assertions'.padStart(10)}`,
        ...table,
        'Failing files out of scope:',
        ...outside,
        'Commonest failures (assertions):',
        ...commonest,
        slowest ? `Slowest file: ${slowest.name} ${Math.round(slowest.milliseconds)} ms. Reasons per failing file: ${REPORT_FILE}` : '',
      ].join('\n'),
    );
    const report = FOLDERS.flatMap((folder) =>
      (results.get(folder) ?? [])
        .filter((file) => file.failures.length > 0)
        .map((file) => `${folder}/${file.name}\n${file.failures.map((failure) => `  [${failure.category}] ${failure.detail}`).join('\n')}`),
    ).join('\n');
    writeFileSync(REPORT_FILE, `${report}\n`);
    if (process.env.CUE_CONFORMANCE_VERBOSE === '1') console.log(report);
    if (process.env.CUE_CONFORMANCE_WRITE_FLOORS === '1' && rows.length === FOLDERS.length)
      writeFileSync(FLOORS_FILE, `${JSON.stringify(Object.fromEntries(rows.map((row) => [row.folder, row.passed])), null, 2)}\n`);
  });
});
