import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { cgp, folderWith } from '../support/cgp';
import { governanceApi } from '../support/governance-api';
import { technicalToken } from '../support/tokens';

// `cgp policies push / pull` against serverless offline: policies kept as files in git.

const baseUrl = inject('baseUrl');
const TYPE = 'cgp-sync-type';

const listed = async (kind: 'policies' | 'metrics') =>
  (await governanceApi<{ data: EntityRepresentation[] }>('GET', `/${kind}?resourceType=${TYPE}&limit=100`)).data;

const OWNER = [
  '// ---',
  '// name: Sync owner',
  `// resourceType: ${TYPE}`,
  '// severity: warning',
  '// tags: [ownership]',
  '// ---',
  'owner: email: =~"@"',
  '',
].join('\n');
const PORTS = ['components: [...]', 'value: len(components)', ''].join('\n');
const PORTS_META = `kind: metric\nname: Sync components\nresourceType: ${TYPE}\nthresholds:\n  - {label: none, color: red, max: 0}\n`;

const folders: string[] = [];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  await governanceApi('POST', '/resource-types', { name: TYPE, resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' } });
  env = { CGP_TOKEN: await technicalToken({ sub: 'cgp-sync' }), CGP_SERVER: baseUrl };
});
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

const project = (files: Record<string, string>) => {
  const folder = folderWith(files);
  folders.push(folder);
  return folder;
};

describe('cgp policies push', () => {
  it('plans, creates and publishes, then changes nothing when pushed again; an edit is a new version', async () => {
    const cwd = project({ 'policies/owner.cue': OWNER, 'policies/ports.cue': PORTS, 'policies/ports.yaml': PORTS_META });

    const dry = await cgp(['policies', 'push', 'policies', '--publish', '--dry-run'], { cwd, env });
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^create \+ publish\s+policy\s+"Sync owner" \(policies\/owner\.cue\)$/m);
    expect(dry.stdout).toMatch(/^create \+ publish\s+metric\s+"Sync components" \(policies\/ports\.cue\)$/m);
    expect(dry.stdout).toMatch(/^dry run, nothing sent: 2 create, 0 new version, 0 edit draft, 0 unchanged, 2 publish$/m);
    expect(await listed('policies')).toEqual([]);

    const first = await cgp(['policies', 'push', 'policies', '--publish'], { cwd, env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^pushed: 2 create, 0 new version, 0 edit draft, 0 unchanged, 2 publish$/m);
    const [policy] = await listed('policies');
    expect(policy).toMatchObject({ name: 'Sync owner', status: 'enabled', severity: 'warning', tags: ['ownership'], engine: 'cue', version: 1 });
    // The platform keeps the script without its front matter.
    expect(policy.cueScript).toBe('owner: email: =~"@"\n');
    const [metric] = await listed('metrics');
    expect(metric).toMatchObject({ name: 'Sync components', status: 'enabled', cueScript: PORTS, thresholds: [{ label: 'none', color: 'red', max: 0 }] });

    const again = await cgp(['policies', 'push', 'policies', '--publish'], { cwd, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^pushed: 0 create, 0 new version, 0 edit draft, 2 unchanged, 0 publish$/m);
    expect((await governanceApi<{ data: EntityRepresentation[] }>('GET', `/policies/${policy.id}/versions`)).data).toHaveLength(1);

    writeFileSync(path.join(cwd, 'policies/owner.cue'), OWNER.replace('=~"@"', '=~"^[^@]+@[^@]+$"'));
    const edited = await cgp(['policies', 'push', 'policies'], { cwd, env });
    expect(edited.stdout).toMatch(/^new version\s+policy\s+"Sync owner"/m);
    const versions = (await governanceApi<{ data: EntityRepresentation[] }>('GET', `/policies/${policy.id}/versions`)).data;
    expect(versions.map((version) => [version.version, version.status])).toEqual([
      [1, 'enabled'],
      [2, 'draft'],
    ]);
    const draftAgain = await cgp(['policies', 'push', 'policies'], { cwd, env });
    expect(draftAgain.stdout).toMatch(/^pushed: 0 create, 0 new version, 0 edit draft, 2 unchanged, 0 publish$/m);
  });

  it('refuses files the platform would refuse before sending anything: exit 2 naming the file and field', async () => {
    const cwd = project({
      'p/a.cue': '// ---\n// name: Sync no type\n// ---\nx: 1\n',
      'p/b.cue': `// ---\n// name: Sync fine\n// resourceType: ${TYPE}\n// ---\nx: 1\n`,
    });
    const run = await cgp(['policies', 'push', 'p'], { cwd, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('cgp: p/a.cue: resourceType: resourceType is required\n');
    expect((await listed('policies')).map((entity) => entity.name)).not.toContain('Sync fine');
  });
});

describe('cgp policies pull', () => {
  it('writes one file per CUE policy and metric, and pushing them back changes nothing', async () => {
    const cwd = project({});
    const run = await cgp(['policies', 'pull', 'pulled', '--type', TYPE], { cwd, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readdirSync(path.join(cwd, 'pulled')).sort()).toEqual(['sync-components.cue', 'sync-owner.cue']);
    const [policy] = await listed('policies');
    const owner = readFileSync(path.join(cwd, 'pulled/sync-owner.cue'), 'utf8');
    expect(owner).toBe(
      [
        '// ---',
        '// kind: policy',
        `// id: ${policy.id}`,
        '// name: Sync owner',
        '// description: ""',
        `// resourceType: ${TYPE}`,
        '// environment: null',
        '// severity: warning',
        '// interactionType: null',
        '// tags:',
        '//   - ownership',
        '// requireConcrete: true',
        '// trigger: active',
        '// timing: deployment',
        '// cronExpression: null',
        '// strategy: default',
        '// ---',
        policy.cueScript,
      ].join('\n'),
    );

    // The same file serves cgp test.
    writeFileSync(path.join(cwd, 'd.yaml'), 'owner: {email: a@b}\n');
    const test = await cgp(['test', 'pulled', 'd.yaml'], { cwd, env });
    expect(test.code).toBe(0);
    expect(JSON.parse(test.stdout)).toMatchObject({ passed: true, results: [{ policy: { name: 'Sync components' } }, { policy: { name: 'Sync owner' } }] });
    const push = await cgp(['policies', 'push', 'pulled', '--publish'], { cwd, env });
    expect(push.code).toBe(0);
    expect(push.stdout).toMatch(/^pushed: 0 create, 0 new version, 0 edit draft, 2 unchanged, \d publish$/m);
  });
});
