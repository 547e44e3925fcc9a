import { rm } from 'node:fs/promises';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { freePort } from '../../scripts/free-port';
import { cgp, folderWith } from '../support/cgp';
import { governanceApi, publishedCuePolicy } from '../support/governance-api';
import { technicalToken } from '../support/tokens';

// `cgp evaluate` as a CI job runs it, against serverless offline: the gate's exit code and output.

const baseUrl = inject('baseUrl');
const TYPE = 'cgp-dataproduct';
const GOOD = 'id: urn:dp:cgp-good\nname: Good\nowner:\n  email: alice@example.com\n';
const BAD = 'id: urn:dp:cgp-bad\nname: Bad\nowner:\n  email: nobody\n';

let cwd: string;
let policy: EntityRepresentation;
let token: string;

beforeAll(async () => {
  policy = await publishedCuePolicy(TYPE, 'Owners have an e-mail', 'owner: email: =~"@"\n');
  cwd = folderWith({ 'good.yaml': GOOD, 'bad.yaml': BAD, 'dp/bad.json': '{\n  "id": "urn:dp:cgp-bad-json",\n  "owner": {"email": "x"}\n}\n' });
  token = await technicalToken({ sub: 'cgp-ci' });
});

afterAll(() => rm(cwd, { recursive: true, force: true }));

const json = (stdout: string) =>
  JSON.parse(stdout) as {
    passed: boolean;
    outcome: string;
    reportId: string;
    results: Array<{ policy: { ref: string; name: string }; outcome: string; errors: string[] }>;
  };

describe('cgp evaluate', () => {
  it('passes a compliant descriptor: exit 0, the report as JSON', async () => {
    const run = await cgp(['evaluate', 'good.yaml', '--type', TYPE, '--env', 'development', '--server', baseUrl], { cwd, env: { CGP_TOKEN: token } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = json(run.stdout);
    expect(report).toMatchObject({ passed: true, outcome: 'ok', results: [{ policy: { ref: policy.id, name: 'Owners have an e-mail' }, outcome: 'ok' }] });
    const stored = await governanceApi<{ status: string; createdBy: string }>('GET', `/evaluation-reports/${report.reportId}`);
    expect(stored).toMatchObject({ status: 'completed', createdBy: 'cgp-ci' });
  });

  it('fails the gate on a failing descriptor: exit 1, the errors, the table naming the report', async () => {
    const run = await cgp(['evaluate', 'bad.yaml', '-t', TYPE, '-e', 'development', '--server', baseUrl, '--token', token, '--format', 'table'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^error\s+Owners have an e-mail\s+bad\.yaml$/m);
    expect(run.stdout).toMatch(/owner\.email: invalid value "nobody"/);
    expect(run.stdout).toMatch(/FAILED: 1 results: 1 error \(report [0-9a-f-]{36}\)\n$/);
  });

  it('polls the report when Evaluate answers 202 before the run ends (--wait 0)', async () => {
    const run = await cgp(['evaluate', 'bad.yaml', '-t', TYPE, '-e', 'development', '--server', baseUrl, '--wait', '0'], { cwd, env: { CGP_TOKEN: token } });
    expect(run.code).toBe(1);
    expect(json(run.stdout)).toMatchObject({
      passed: false,
      outcome: 'error',
      results: [{ outcome: 'error', errors: [expect.stringMatching(/owner\.email/)] }],
    });
    const wrong = await cgp(['evaluate', 'bad.yaml', '-t', TYPE, '-e', 'development', '--wait', '26'], { cwd });
    expect(wrong).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--wait <seconds>' argument '26' is invalid\. must be a whole number of seconds from 0 to 25/),
    });
  });

  it('locates the errors in the descriptor for the github format', async () => {
    const run = await cgp(['evaluate', 'dp/bad.json', '-t', TYPE, '-e', 'development', '--server', baseUrl, '--format', 'github'], {
      cwd,
      env: { CGP_TOKEN: token },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error file=dp\/bad\.json,line=3,col=13,title=Owners have an e-mail \(error\)::owner\.email: invalid value "x"/m);
  });

  it('lets an exception waive the failing descriptor: exit 0, outcome waived', async () => {
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    await governanceApi('POST', '/exceptions', {
      policyId: policy.id,
      resourceId: 'urn:dp:cgp-bad',
      environment: 'development',
      reason: 'migrating owners',
      expiresAt,
    });
    const run = await cgp(['evaluate', 'bad.yaml', '-t', TYPE, '-e', 'development', '--server', baseUrl], { cwd, env: { CGP_TOKEN: token } });
    expect(run.code).toBe(0);
    expect(json(run.stdout)).toMatchObject({
      passed: true,
      outcome: 'waived',
      results: [{ outcome: 'waived', errors: [expect.stringMatching(/owner\.email/)] }],
    });
  });

  it('cgp exceptions lists the exception that waived it, as JSON and as a table', async () => {
    const listed = await cgp(['exceptions', '--policy', policy.id], { cwd, env: { CGP_TOKEN: token, CGP_SERVER: baseUrl } });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      data: [{ policyId: policy.id, resourceId: 'urn:dp:cgp-bad', environment: 'development', reason: 'migrating owners', active: true }],
    });
    const table = await cgp(['exceptions', '--policy', policy.id, '--active', '--format', 'table'], { cwd, env: { CGP_TOKEN: token, CGP_SERVER: baseUrl } });
    expect(table.stdout.split('\n')[0]).toMatch(/^STATE\s+POLICY OR METRIC\s+RESOURCE\s+ENVIRONMENT\s+EXPIRES\s+TICKET\s+REASON$/);
    expect(table.stdout).toMatch(new RegExp(`^active\\s+policy ${policy.id}\\s+urn:dp:cgp-bad\\s+development\\s+\\S+\\s+migrating owners$`, 'm'));
    expect(table.stdout).toMatch(/\n1 exceptions, 1 active\n$/);
    const expired = await cgp(['exceptions', '--policy', policy.id, '--expired'], { cwd, env: { CGP_TOKEN: token, CGP_SERVER: baseUrl } });
    expect(JSON.parse(expired.stdout)).toEqual({ data: [] });
    const both = await cgp(['exceptions', '--active', '--expired'], { cwd, env: { CGP_TOKEN: token, CGP_SERVER: baseUrl } });
    expect(both.code).toBe(2);
  });

  it('exits 2 with the problem when the platform refuses the call, and never prints the token', async () => {
    const anonymous = await cgp(['evaluate', 'good.yaml', '-t', TYPE, '-e', 'development', '--server', baseUrl], { cwd, env: { CGP_TOKEN: '' } });
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toMatch(/^cgp: POST \/evaluate: 401 .*\(give a token: --token or CGP_TOKEN, or CGP_USER and CGP_ACCESS_TOKEN\)\n$/);

    const unknownType = await cgp(['evaluate', 'good.yaml', '-t', 'no-such-type', '-e', 'development', '--server', baseUrl], {
      cwd,
      env: { CGP_TOKEN: token },
    });
    expect(unknownType.code).toBe(2);
    expect(unknownType.stderr).toMatch(/^cgp: POST \/evaluate: 4\d\d .*resourceType/);
    expect(unknownType.stderr + unknownType.stdout).not.toContain(token);

    const nobody = await freePort();
    const unreachable = await cgp(['evaluate', 'good.yaml', '-t', TYPE, '-e', 'development', '--server', `http://127.0.0.1:${nobody}`], {
      cwd,
      env: { CGP_TOKEN: token },
    });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toBe(`cgp: could not reach the platform at http://127.0.0.1:${nobody}: connect ECONNREFUSED 127.0.0.1:${nobody}\n`);

    const missing = await cgp(['evaluate', 'good.yaml', '--server', baseUrl], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '-t, --type <resourceType>' not specified/);
  });
});
