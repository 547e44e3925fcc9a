import { rm } from 'node:fs/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { Role } from '#lib/authorization/roles';
import type { Database } from '#lib/db/client';

import { freePort } from '../../scripts/free-port';
import { type RunningOffline, startServerlessOffline } from '../../scripts/serverless-offline';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { cgp, folderWith } from '../support/cgp';
import { testDatabase } from '../support/database';
import { callTool, textOf } from '../support/mcp-tools';
import { testSettingsFile } from '../support/settings-files';
import { technicalToken } from '../support/tokens';

/**
 * Four-eyes end to end: a serverless offline of its own, with CGP_FOUR_EYES=true in its environment
 * (application.conf reads it), on the end-to-end database; real HTTP, and `cgp approvals`.
 */

const API = '/v1/computational-governance';

/** The remote engine (fails descriptors whose owner is `nobody`) and the perimeter resolver (two resources). */
const engine = new FakeServer((request: RecordedRequest<{ content?: string }>) => {
  if (request.path.startsWith('/resources'))
    return { status: 200, body: { resources: [{ id: 'urn:dp:a', content: 'id: urn:dp:a\nowner: team\n' }], page: { offset: 0, limit: 100, total: 1 } } };
  const failing = (request.body?.content ?? '').includes('owner: nobody');
  return { status: 200, body: { satisfiesPolicy: !failing, errors: failing ? ['owner is missing'] : [] } };
});

let offline: RunningOffline;
let database: Database;
const folders: string[] = [];

type Caller = { sub: string; roles?: Role[] };
const AUTHOR: Caller = { sub: 'e2e-author', roles: ['author', 'approver'] };
const APPROVER: Caller = { sub: 'e2e-approver', roles: ['approver'] };
const ADMIN: Caller = { sub: 'e2e-admin', roles: ['admin'] };
const CI_JOB: Caller = { sub: 'e2e-ci', roles: undefined };

async function call(caller: Caller, method: string, route: string, body?: unknown) {
  const token = await technicalToken({ sub: caller.sub, roles: caller.roles });
  const response = await fetch(`${offline.baseUrl}${API}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), prefer: 'wait=20' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const cli = async (caller: Caller, args: string[]) => {
  const cwd = folderWith({});
  folders.push(cwd);
  return cgp(['approvals', ...args], { cwd, env: { CGP_SERVER: offline.baseUrl, CGP_TOKEN: await technicalToken({ sub: caller.sub, roles: caller.roles }) } });
};

const evaluate = async (resourceType: string, owner: string) => {
  const response = await call(CI_JOB, 'POST', '/evaluate', { environment: 'production', resourceType, descriptor: `id: urn:dp:sales\nowner: ${owner}\n` });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { passed: boolean; evaluationResults: { outcome: string }[] };
};

/** Each test's policies are of a resource type of its own: evaluations see only them. */
async function policy(name: string, resourceType: string): Promise<string> {
  const registered = await call(ADMIN, 'POST', '/resource-types', {
    name: resourceType,
    configuration: { resourceName: 'id' },
    resolverConfiguration: { url: engine.url, path: '/resources' },
  });
  // A setting of the service: under four-eyes, a request someone else approves.
  expect(registered.status).toBe(202);
  expect((await call(APPROVER, 'POST', `/approvals/${registered.body.approvalId}/approve`, {})).status).toBe(200);
  const created = await call(AUTHOR, 'POST', '/policies', { name, resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/policy` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

beforeAll(async () => {
  await engine.start();
  const configFile = testSettingsFile('computational-governance-platform.database.schema = "e2e"');
  offline = startServerlessOffline({
    httpPort: await freePort(),
    lambdaPort: await freePort(),
    env: { ...process.env, DATABASE_URL: inject('databaseUrl'), CGP_CONFIG_FILE: configFile, CGP_FOUR_EYES: 'true', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  await offline.ready;
  database = await testDatabase('e2e');
}, 180_000);

afterAll(async () => {
  await offline?.stop();
  await database?.close();
  await engine.stop();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('four-eyes under serverless offline', () => {
  it('the author asks to publish, cannot approve it; an approver approves with cgp, the policy is enabled and its evaluation ran', async () => {
    const id = await policy('four-eyes owner', 'four-eyes-published');
    const me = await call(AUTHOR, 'GET', '/me');
    expect(me.body).toMatchObject({ subject: 'e2e-author', roles: ['author', 'approver'], fourEyes: true });

    const asked = await call(AUTHOR, 'POST', `/policies/${id}/publish`);
    expect(asked.status).toBe(202);
    expect(asked.headers.get('location')).toBe(`${API}/approvals/${asked.body.approvalId}`);
    expect((await call(AUTHOR, 'GET', `/policies/${id}`)).body.status).toBe('draft');

    const listed = await cli(APPROVER, ['list', '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).data.map((approval: { id: string }) => approval.id)).toContain(asked.body.approvalId);

    const self = await cli(AUTHOR, ['approve', asked.body.approvalId]);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('403');
    expect(self.stderr).toContain('Four-eyes');
    expect((await call(AUTHOR, 'GET', `/policies/${id}`)).body.status).toBe('draft');

    const approved = await cli(APPROVER, ['approve', asked.body.approvalId, '--comment', 'looks right']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(/^approved: publish policy "four-eyes owner" version 1; evaluation report [0-9a-f-]{36}$/m);
    expect((await call(AUTHOR, 'GET', `/policies/${id}`)).body.status).toBe('enabled');
    const request = await call(CI_JOB, 'GET', `/approvals/${asked.body.approvalId}`);
    expect(request.body).toMatchObject({ status: 'approved', decidedBy: 'e2e-approver', comment: 'looks right' });
    const reportId = request.body.outcome.evaluationReportId;
    await expect
      .poll(async () => (await call(CI_JOB, 'GET', `/evaluation-reports/${reportId}`)).body.status, { timeout: 60_000, interval: 250 })
      .toBe('completed');
  });

  it('a status move that is rejected changes nothing; one that expires cannot be approved', async () => {
    const id = await policy('four-eyes rejected', 'four-eyes-moved');
    await database.sql.unsafe(`update e2e.governance_entities set status = 'enabled' where id = $1`, [id]);
    const demote = await call(AUTHOR, 'POST', `/policies/${id}/status`, { status: 'grace' });
    expect(demote.status).toBe(202);
    const rejected = await cli(APPROVER, ['reject', demote.body.approvalId, '-m', 'fix the descriptors instead']);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toContain('rejected:');
    expect((await call(AUTHOR, 'GET', `/policies/${id}`)).body.status).toBe('enabled');

    const disable = await call(AUTHOR, 'POST', `/policies/${id}/status`, { status: 'disabled' });
    await database.sql.unsafe(`update e2e.approvals set expires_at = now() - interval '1 second' where id = $1`, [disable.body.approvalId]);
    expect((await call(CI_JOB, 'GET', `/approvals/${disable.body.approvalId}`)).body.status).toBe('expired');
    const late = await call(APPROVER, 'POST', `/approvals/${disable.body.approvalId}/approve`, {});
    expect(late.status).toBe(409);
    expect((await call(AUTHOR, 'GET', `/policies/${id}`)).body.status).toBe('enabled');
    const expired = await cli(APPROVER, ['list', '--status', 'expired', '--format', 'json']);
    expect(JSON.parse(expired.stdout).data.map((approval: { id: string }) => approval.id)).toContain(disable.body.approvalId);
  });

  it('a pending exception waives nothing; approved, the next evaluation is waived', async () => {
    const id = await policy('four-eyes waived', 'four-eyes-waived');
    await database.sql.unsafe(`update e2e.governance_entities set status = 'enabled' where id = $1`, [id]);
    expect((await evaluate('four-eyes-waived', 'nobody')).passed).toBe(false);
    const asked = await call(AUTHOR, 'POST', '/exceptions', {
      policyId: id,
      resourceId: 'urn:dp:sales',
      environment: 'production',
      reason: 'owner being hired',
      expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    });
    expect(asked.status).toBe(202);
    expect((await evaluate('four-eyes-waived', 'nobody')).passed).toBe(false);
    expect((await call(APPROVER, 'POST', `/approvals/${asked.body.approvalId}/approve`, {})).status).toBe(200);
    const report = await evaluate('four-eyes-waived', 'nobody');
    expect(report.passed).toBe(true);
    expect(report.evaluationResults.map((result) => result.outcome)).toContain('waived');
  });

  it('an agent asks for an exception through the MCP endpoint: a request, pending until someone else approves it, whose status it reads', async () => {
    const id = await policy('four-eyes by an agent', 'four-eyes-agent');
    const agent = new Client({ name: 'four-eyes-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${offline.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await technicalToken({ sub: AUTHOR.sub, roles: AUTHOR.roles })}` } },
      }),
    );
    try {
      const asked = await callTool(agent, 'request_exception', {
        policyId: id,
        resourceId: 'urn:dp:sales',
        environment: 'production',
        reason: 'the agent’s migration',
        expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      });
      expect(asked.isError, textOf(asked)).toBeFalsy();
      expect(asked.structuredContent).toMatchObject({ state: 'requested', approvalId: expect.any(String) });
      const approvalId = asked.structuredContent?.approvalId as string;
      expect((await callTool(agent, 'get_approval_status', { id: approvalId })).structuredContent).toMatchObject({
        kind: 'exception',
        status: 'pending',
        requestedBy: AUTHOR.sub,
        decidedBy: null,
      });
      expect((await call(APPROVER, 'POST', `/approvals/${approvalId}/approve`, { comment: 'fine for a week' })).status).toBe(200);
      expect((await callTool(agent, 'get_approval_status', { id: approvalId })).structuredContent).toMatchObject({
        status: 'approved',
        decidedBy: APPROVER.sub,
        comment: 'fine for a week',
      });
    } finally {
      await agent.close();
    }
  });
});
