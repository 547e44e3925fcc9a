import { rm } from 'node:fs/promises';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { FakeServer } from '../fakes/fake-server';
import { cgp, folderWith } from '../support/cgp';
import { governanceApi } from '../support/governance-api';
import { technicalToken } from '../support/tokens';

// `cgp policies impact` against serverless offline: the impact report runs through the local queue
// and the worker; the command exits 1 when a version newly fails resources (a CI check).

const TYPE = 'cgp-impact-type';
/** dp-n in development has size 10 x n and belongs to team-a (odd n) or team-b (even n). */
const resolver = new FakeServer((request) => {
  const all = Array.from({ length: 6 }, (_, i) => ({
    id: `dp-${i + 1}`,
    content: `id: dp-${i + 1}\nowner: team-${i % 2 ? 'b' : 'a'}\nsize: ${10 * (i + 1)}\n`,
  }));
  const offset = Number(request.query.offset);
  const resources = request.query.environment === 'development' ? all : [];
  return {
    status: 200,
    body: { resources: resources.slice(offset, offset + Number(request.query.limit)), page: { offset, limit: Number(request.query.limit) } },
  };
});
const folders: string[] = [];
let env: NodeJS.ProcessEnv;
let policy: EntityRepresentation;

const script = (max: number) => `size: <=${max}\n`;
/** Reads until the report the publish started has ended (the worker runs in the background). */
async function settled(reportId: string) {
  for (let poll = 0; poll < 240; poll++) {
    const report = await governanceApi<{ status: string }>('GET', `/evaluation-reports/${reportId}`);
    if (report.status === 'completed' || report.status === 'failed') return report;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`report ${reportId} did not end`);
}

beforeAll(async () => {
  await resolver.start();
  await governanceApi('POST', '/resource-types', {
    name: TYPE,
    configuration: { resourceName: 'id', resourceOwnerField: 'owner', batchSize: 4 },
    resolverConfiguration: { url: resolver.url, path: '/resources' },
  });
  env = { CGP_TOKEN: await technicalToken({ sub: 'cgp-impact', roles: ['admin'] }), CGP_SERVER: inject('baseUrl') };
  // Live: size <= 40 (dp-5 and dp-6 fail it).
  policy = await governanceApi<EntityRepresentation>('POST', '/policies', {
    name: 'Size is bounded',
    resourceType: TYPE,
    environment: 'development',
    engine: 'cue',
    cueScript: script(40),
  });
  const published = await governanceApi<{ evaluationReportId: string }>('POST', `/policies/${policy.id}/publish`);
  expect(await settled(published.evaluationReportId)).toMatchObject({ status: 'completed' });
});

afterAll(async () => {
  await resolver.stop();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('cgp policies impact', () => {
  it('exits 1 and names the resources a stricter version newly fails, with their owners and a bar per environment', async () => {
    await governanceApi('PUT', `/policies/${policy.id}`, {
      name: 'Size is bounded',
      resourceType: TYPE,
      environment: 'development',
      engine: 'cue',
      cueScript: script(20),
    });
    const cwd = folderWith({});
    folders.push(cwd);
    const run = await cgp(['policies', 'impact', policy.id, '--format', 'text'], { cwd, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`impact of policy ${policy.id} version 2 against live version 1`);
    expect(run.stdout).toContain('newly failing 2, newly passing 0, still failing 2, still passing 2, never judged 0');
    expect(run.stdout).toMatch(/^development {2}!{10}x{10}\.{10} {2}2 newly failing of 6$/m);
    expect(run.stdout).toMatch(/^ {2}development dp-3 \(team-a\): .*size/m);
    expect(run.stdout).toMatch(/^ {2}development dp-4 \(team-b\): .*size/m);

    // As JSON (not a terminal: the default), the same report.
    const json = await cgp(['policies', 'impact', policy.id, '--env', 'development'], { cwd, env });
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.report.counts).toEqual({ newlyFailing: 2, newlyPassing: 0, stillFailing: 2, stillPassing: 2, notEvaluated: 0 });
    expect(parsed.newlyFailing.map((row: { resourceId: string }) => row.resourceId)).toEqual(['dp-3', 'dp-4']);
  });

  it('exits 0 for a version that newly fails nothing, from its pulled file; 2 for a file the platform does not hold', async () => {
    await governanceApi('PUT', `/policies/${policy.id}`, {
      name: 'Size is bounded',
      resourceType: TYPE,
      environment: 'development',
      engine: 'cue',
      cueScript: script(50),
    });
    const cwd = folderWith({});
    folders.push(cwd);
    expect((await cgp(['policies', 'pull', 'policies', '--type', TYPE], { cwd, env })).code).toBe(0);
    const looser = await cgp(['policies', 'impact', 'policies/size-is-bounded.cue', '--format', 'text'], { cwd, env });
    expect(looser.stderr).toBe('');
    expect(looser.code).toBe(0);
    expect(looser.stdout).toContain('newly failing 0, newly passing 1, still failing 1, still passing 4, never judged 0');

    const stale = folderWith({ 'other.cue': `// ---\n// id: ${policy.id}\n// ---\nsize: <=1\n` });
    folders.push(stale);
    const refused = await cgp(['policies', 'impact', 'other.cue'], { cwd: stale, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not this file: push it first (cgp policies push)');
  });

  it("weighs a metric given by its id: the metric's own route, never a policy's", async () => {
    const metric = await governanceApi<EntityRepresentation>('POST', '/metrics', {
      name: 'Size',
      resourceType: TYPE,
      environment: 'development',
      engine: 'cue',
      cueScript: 'size: number\nvalue: size\n',
    });
    const cwd = folderWith({});
    folders.push(cwd);
    const run = await cgp(['policies', 'impact', metric.id, '--format', 'text'], { cwd, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`impact of metric ${metric.id} version 1 against no live version`);
    expect(run.stdout).toContain('never judged 6');
  });

  it("prints a metric's moves between thresholds", async () => {
    const thresholds = (line: number) => [
      { label: 'small', color: 'green', max: line },
      { label: 'large', color: 'red', min: line },
    ];
    const banded = (line: number) => ({
      name: 'Size banded',
      resourceType: TYPE,
      environment: 'development',
      engine: 'cue',
      cueScript: 'size: number\nvalue: size\n',
      thresholds: thresholds(line),
    });
    const metric = await governanceApi<EntityRepresentation>('POST', '/metrics', banded(25));
    const published = await governanceApi<{ evaluationReportId: string }>('POST', `/metrics/${metric.id}/publish`);
    expect(await settled(published.evaluationReportId)).toMatchObject({ status: 'completed' });
    await governanceApi('PUT', `/metrics/${metric.id}`, banded(45));
    const cwd = folderWith({});
    folders.push(cwd);
    const run = await cgp(['policies', 'impact', metric.id, '--format', 'text'], { cwd, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // dp-3 and dp-4 (30, 40) move from large to small; dp-1, dp-2 stay small, dp-5, dp-6 large.
    expect(run.stdout).toContain("thresholds (the live version's -> the candidate's):\n  large -> small: 2\n  large -> large: 2\n  small -> small: 2\n");
  });
});
