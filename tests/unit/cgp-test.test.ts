import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';

import { cgp, folderWith } from '../support/cgp';

// `cgp test` as a user runs it: a process of its own, in a folder of policies and descriptors.

const POLICY = [
  '// ---',
  '// name: Sales owner',
  '// resourceType: dataproduct',
  '// ---',
  'name!: string',
  'owner: email: =~"@"',
  'components: [...{kind: "outputport" | "storage"}]',
  '',
].join('\n');
const GOOD = 'name: good\nowner:\n  email: alice@example.com\ncomponents:\n  - kind: outputport\n';
const BAD = 'name: bad\nowner:\n  email: nope\ncomponents:\n  - kind: outputport\n  - kind: weird\n';

const folders: string[] = [];
const project = (files: Record<string, string>) => {
  const folder = folderWith(files);
  folders.push(folder);
  return folder;
};
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

const json = (stdout: string) =>
  JSON.parse(stdout) as {
    passed: boolean;
    outcome: string;
    counts: Record<string, number>;
    results: Array<{
      policy: { name: string; ref: string };
      descriptor: string;
      outcome: string;
      errors: string[];
      value?: number;
      threshold?: { label: string };
    }>;
  };

describe('cgp test', () => {
  it('passes descriptors that comply: exit 0, JSON when the output is not a terminal', async () => {
    const cwd = project({ 'policies/owner.cue': POLICY, 'descriptors/good.yaml': GOOD });
    const run = await cgp(['test', 'policies', 'descriptors/good.yaml'], { cwd });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = json(run.stdout);
    expect(report).toMatchObject({ passed: true, outcome: 'ok', counts: { ok: 1, error: 0 } });
    expect(report.results[0]).toMatchObject({
      policy: { name: 'Sales owner', ref: 'policies/owner.cue' },
      descriptor: 'descriptors/good.yaml',
      outcome: 'ok',
      errors: [],
    });
  });

  it('fails when one descriptor fails: exit 1, every error with its place in the policy file', async () => {
    const cwd = project({ 'owner.cue': POLICY, 'd/good.yaml': GOOD, 'd/bad.yaml': BAD });
    const run = await cgp(['test', 'owner.cue', 'd'], { cwd });
    expect(run.code).toBe(1);
    const report = json(run.stdout);
    expect(report).toMatchObject({ passed: false, outcome: 'error', counts: { ok: 1, error: 1 } });
    const bad = report.results.find((result) => result.descriptor === 'd/bad.yaml');
    expect(bad?.errors).toEqual([
      expect.stringMatching(/^components\.1\.kind: .*conflicting values "weird" and "outputport"[\s\S]*owner\.cue:7:\d+$/),
      expect.stringMatching(/^owner\.email: invalid value "nope" \(out of bound =~"@"\):\n\s+owner\.cue:6:\d+$/),
    ]);
  });

  it('prints a table with --format table', async () => {
    const cwd = project({ 'owner.cue': POLICY, 'good.yaml': GOOD, 'bad.yaml': BAD });
    const run = await cgp(['test', 'owner.cue', 'good.yaml', 'bad.yaml', '--format', 'table'], { cwd });
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^OUTCOME\s+POLICY\s+DESCRIPTOR\s+DETAIL$/);
    expect(lines).toContainEqual(expect.stringMatching(/^ok\s+Sales owner\s+good\.yaml$/));
    expect(lines).toContainEqual(expect.stringMatching(/^error\s+Sales owner\s+bad\.yaml$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {4}owner\.email: invalid value "nope" .* owner\.cue:6:\d+$/));
    expect(run.stdout).toMatch(/FAILED: 2 results: 1 ok, 1 error\n$/);
  });

  it('draws a progress bar and a table on a terminal, neither in a pipe', async () => {
    const cwd = project({ 'owner.cue': POLICY, 'd/a.yaml': GOOD, 'd/b.yaml': GOOD, 'd/c.yaml': BAD });
    // util-linux's script runs the command on a pseudo-terminal, as a person at a terminal would.
    const command = `'${process.execPath}' '${path.resolve('bin/cgp.mjs')}' test owner.cue d`;
    const onTerminal = spawnSync('script', ['-qec', command, '/dev/null'], { cwd, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: '' } });
    expect(onTerminal.status).toBe(1);
    const terminal = onTerminal.stdout.replace(/\r\n/g, '\n');
    // The bar, redrawn on its line, then the line cleared (ESC [2K) before the table.
    const bar = `\rcgp test [${'.'.repeat(30)}] 0/3\rcgp test [${'#'.repeat(30)}] 3/3\r\u001b[2KOUTCOME`;
    expect(terminal.slice(0, bar.length)).toBe(bar);
    expect(terminal).toMatch(/FAILED: 3 results: 2 ok, 1 error\n$/);

    const piped = await cgp(['test', 'owner.cue', 'd'], { cwd });
    expect(piped.stderr).toBe('');
    expect(json(piped.stdout).counts).toMatchObject({ ok: 2, error: 1 });
  });

  it('expands quoted globs itself, ** included', async () => {
    const cwd = project({ 'owner.cue': POLICY, 'd/a/good.yaml': GOOD, 'd/b/c/also.yaml': GOOD, 'd/skipped.json': '{"name": "x"}' });
    const run = await cgp(['test', 'owner.cue', 'd/**/*.yaml'], { cwd });
    expect(run.code).toBe(0);
    expect(json(run.stdout).results.map((result) => result.descriptor)).toEqual(['d/a/good.yaml', 'd/b/c/also.yaml']);
  });

  it('writes a report larger than the pipe buffer whole before it exits', async () => {
    const cwd = project(Object.fromEntries([['owner.cue', POLICY], ...Array.from({ length: 400 }, (_, i) => [`d/bad-${i}.yaml`, BAD])]));
    const run = await cgp(['test', 'owner.cue', 'd'], { cwd });
    expect(run.stdout.length).toBeGreaterThan(128 * 1024);
    expect(run.code).toBe(1);
    expect(json(run.stdout).counts.error).toBe(400);
  });

  it('reads metadata from the YAML file beside the policy, and flags win over it', async () => {
    const cwd = project({ 'owner.cue': POLICY.split('\n').slice(4).join('\n'), 'owner.yaml': 'name: From the side\nseverity: warning\n', 'bad.yaml': BAD });
    const run = await cgp(['test', 'owner.cue', 'bad.yaml'], { cwd });
    expect(run.code).toBe(0);
    expect(json(run.stdout)).toMatchObject({ passed: true, outcome: 'warning', results: [{ policy: { name: 'From the side' }, outcome: 'warning' }] });

    const flagged = await cgp(['test', 'owner.cue', 'bad.yaml', '--severity', 'error'], { cwd });
    expect(flagged.code).toBe(1);
    expect(json(flagged.stdout).outcome).toBe('error');
  });

  it('applies requireConcrete from the metadata or the flag', async () => {
    const policy = 'version: =~"^[0-9]+$"\n';
    const cwd = project({ 'version.cue': policy, 'd.yaml': 'name: no-version\n', 'lenient.cue': `// ---\n// requireConcrete: false\n// ---\n${policy}` });
    const strict = await cgp(['test', 'version.cue', 'd.yaml'], { cwd });
    expect(strict.code).toBe(1);
    expect(json(strict.stdout).results[0].errors[0]).toMatch(/^version: incomplete value/);
    expect((await cgp(['test', 'lenient.cue', 'd.yaml'], { cwd })).code).toBe(0);
    expect((await cgp(['test', 'version.cue', 'd.yaml', '--require-concrete', 'false'], { cwd })).code).toBe(0);
  });

  it('evaluates metrics: the value and the threshold it falls in', async () => {
    const metric = [
      '// ---',
      '// kind: metric',
      '// name: Output ports',
      '// thresholds:',
      '//   - {label: none, color: red, max: 0}',
      '//   - {label: some, color: green, min: 1}',
      '// ---',
      'components: [...]',
      'value: len([for c in components if c.kind == "outputport" {c}])',
      '',
    ].join('\n');
    const cwd = project({ 'ports.cue': metric, 'good.yaml': GOOD });
    const run = await cgp(['test', 'ports.cue', 'good.yaml'], { cwd });
    expect(run.code).toBe(0);
    expect(json(run.stdout).results[0]).toMatchObject({ outcome: 'ok', value: 1, threshold: { label: 'some' } });
  });

  it('gives a descriptor that does not parse the outcome failed: exit 1', async () => {
    const cwd = project({ 'owner.cue': POLICY, 'broken.yaml': 'name: [unclosed\n' });
    const run = await cgp(['test', 'owner.cue', 'broken.yaml'], { cwd });
    expect(run.code).toBe(1);
    expect(json(run.stdout).results[0]).toMatchObject({ outcome: 'failed', errors: [expect.stringMatching(/^descriptor: not valid YAML at line \d+/)] });
  });

  it('exits 2 on a policy that does not compile, naming its file, line and column', async () => {
    const cwd = project({ 'broken.cue': 'name!: string\nx: ]\n', 'good.yaml': GOOD });
    const run = await cgp(['test', 'broken.cue', 'good.yaml'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^cgp: broken\.cue:2:4: does not compile: /);
  });

  it('exits 2 on metadata it cannot use, naming the field', async () => {
    const cwd = project({
      'loud.cue': '// ---\n// severity: loud\n// ---\nname!: string\n',
      'twice.cue': '// ---\n// name: a\n// ---\nname!: string\n',
      'twice.yaml': 'name: b\n',
      'good.yaml': GOOD,
    });
    const loud = await cgp(['test', 'loud.cue', 'good.yaml'], { cwd });
    expect(loud.code).toBe(2);
    expect(loud.stderr).toBe('cgp: loud.cue: its metadata is invalid: severity: severity must be one of info, warning, error\n');
    const twice = await cgp(['test', 'twice.cue', 'good.yaml'], { cwd });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/twice\.cue: its metadata is both in its front matter and in twice\.yaml/);
  });

  it('exits 2 on usage errors, and prints help for every command', async () => {
    const cwd = project({ 'owner.cue': POLICY });
    const missing = await cgp(['test', 'owner.cue'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing required argument 'descriptors'/);
    const nothing = await cgp(['test', 'owner.cue', 'none/*.yaml'], { cwd });
    expect(nothing).toMatchObject({ code: 2, stderr: 'cgp: none/*.yaml: matches no descriptor file\n' });
    const format = await cgp(['test', 'owner.cue', 'owner.cue', '--format', 'xml'], { cwd });
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/Allowed choices are table, json, junit, sarif, github/);
    const unknown = await cgp(['tset'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'tset'/);

    const help = await cgp(['--help'], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: cgp \[options\] \[command\]/);
    expect(help.stdout).toMatch(/\n {2}test \[options\] <policy> <descriptors\.\.\.>/);
    const testHelp = await cgp(['test', '--help'], { cwd });
    expect(testHelp.code).toBe(0);
    expect(testHelp.stdout).toMatch(/--require-concrete <boolean>/);
  });
});

describe('cgp test output formats, read by their consumers', () => {
  const files = { 'owner.cue': POLICY, 'd/good.yaml': GOOD, 'd/bad.yaml': BAD, 'd/broken.json': '{"name": }' };

  it('junit: parsed back, one suite per policy, a failure and an error', async () => {
    const cwd = project(files);
    const run = await cgp(['test', 'owner.cue', 'd', '--format', 'junit'], { cwd });
    expect(run.code).toBe(1);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'testsuite' }).parse(
      run.stdout,
      true,
    ) as {
      testsuites: {
        tests: string;
        failures: string;
        errors: string;
        testsuite: Array<{ name: string; testcase: Array<{ name: string; failure?: { type: string; '#text': string }; error?: object }> }>;
      };
    };
    expect(parsed.testsuites).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    const [suite] = parsed.testsuites.testsuite;
    expect(suite.name).toBe('Sales owner');
    const cases = Object.fromEntries(suite.testcase.map((testcase) => [testcase.name, testcase]));
    expect(cases['d/good.yaml'].failure).toBeUndefined();
    expect(cases['d/bad.yaml'].failure?.type).toBe('error');
    expect(cases['d/bad.yaml'].failure?.['#text']).toMatch(/owner\.email: invalid value "nope"/);
    expect(cases['d/broken.json'].error).toBeDefined();
  });

  it('sarif: valid SARIF 2.1.0, each error on the descriptor line its path names', async () => {
    const cwd = project(files);
    const run = await cgp(['test', 'owner.cue', 'd', '--format', 'sarif'], { cwd });
    expect(run.code).toBe(1);
    const log = JSON.parse(run.stdout) as {
      runs: Array<{
        results: Array<{
          ruleId: string;
          level: string;
          message: { text: string };
          locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }>;
        }>;
      }>;
    };
    const schemaFile = createRequire(import.meta.url).resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
    // The schema's `language` pattern is not valid with the `u` flag (a stray `]`): read its patterns without it.
    const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...log, version: '2.0.0' })).toBe(false);

    const where = (text: RegExp) => {
      const [result] = log.runs[0].results.filter((r) => text.test(r.message.text));
      const { artifactLocation, region } = result.locations[0].physicalLocation;
      return { ruleId: result.ruleId, level: result.level, uri: artifactLocation.uri, ...region };
    };
    expect(where(/^owner\.email/)).toEqual({ ruleId: 'owner.cue', level: 'error', uri: 'd/bad.yaml', startLine: 3, startColumn: 3 });
    expect(where(/^components\.1\.kind/)).toMatchObject({ uri: 'd/bad.yaml', startLine: 6, startColumn: 5 });
    expect(where(/not valid JSON/)).toMatchObject({ uri: 'd/broken.json', startLine: 1 });
  });

  it('github: one workflow annotation per error, escaped', async () => {
    const cwd = project(files);
    const run = await cgp(['test', 'owner.cue', 'd', '--format', 'github'], { cwd });
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^::error file=d\/bad\.yaml,line=3,col=3,title=Sales owner \(error\)::owner\.email: invalid value "nope" \(out of bound =~"@"\):%0A\s+owner\.cue:6:\d+$/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^::error file=d\/bad\.yaml,line=6,col=5,title=/));
    expect(lines).toContainEqual(expect.stringMatching(/^::error file=d\/broken\.json,line=1,col=1,title=Sales owner \(failed\)::descriptor: not valid JSON/));
    expect(lines.at(-1)).toBe('cgp: failed: 3 results, 2 failing');
  });
});
