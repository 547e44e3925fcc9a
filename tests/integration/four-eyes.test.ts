import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Approval } from '#lib/authorization/approval';
import type { Role } from '#lib/authorization/roles';
import type { Database } from '#lib/db/client';
import { governance } from '#lib/governance/composition';
import { backgroundDispatchSettled } from '#lib/outbox/background-dispatch';

import type * as approvalsModule from '../../functions/governance/approvals';
import type * as evaluationModule from '../../functions/governance/evaluation';
import type * as exceptionsModule from '../../functions/governance/exceptions';
import type * as policiesModule from '../../functions/governance/policies';
import type * as outboxDispatcherModule from '../../functions/schedules/outbox-dispatcher';
import { FakeServer, type RecordedRequest } from '../fakes/fake-server';
import { testDatabase } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';
import { technicalToken } from '../support/tokens';

/**
 * Four-eyes (authorization.four-eyes.enabled): publishing, status moves and new exceptions become
 * requests that someone else decides; and the attacks of issue 28, each refused.
 */

const SCHEMA = 'it_four_eyes';
const API = '/v1/computational-governance';
const DAY_MS = 86_400_000;

/** Fails the descriptors whose owner is `nobody`. */
const engine = new FakeServer((request: RecordedRequest<{ content: string }>) => {
  const failing = request.body.content.includes('owner: nobody');
  return { status: 200, body: { satisfiesPolicy: !failing, errors: failing ? ['owner is missing'] : [] } };
});
const platform = new FakeServer<Record<string, unknown>>(() => ({ status: 202, body: {} }));

let database: Database;
let approvals: typeof approvalsModule;
let policies: typeof policiesModule;
let exceptions: typeof exceptionsModule;
let evaluation: typeof evaluationModule;
let outboxDispatcher: typeof outboxDispatcherModule;

type Caller = { sub: string; roles?: Role[] };
/** A governance lead: writes policies and approves those of others. */
const AUTHOR: Caller = { sub: 'ana-author', roles: ['author', 'approver'] };
const APPROVER: Caller = { sub: 'bo-approver' };
const ADMIN: Caller = { sub: 'root-admin', roles: ['admin'] };
/** A CI job's technical token: no roles claim, so authorization.technical-token-roles (reader, evaluator). */
const CI_JOB: Caller = { sub: 'ci-job', roles: undefined };

async function as(caller: Caller, handler: Parameters<typeof invoke>[0], request: Omit<Parameters<typeof invoke>[1], 'headers'>) {
  const token = await technicalToken({ sub: caller.sub, roles: 'roles' in caller ? caller.roles : [] });
  return invoke(handler, { ...request, headers: { authorization: `Bearer ${token}`, prefer: 'wait=20' } });
}

const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
const entityRow = async (id: string) =>
  (await database.sql.unsafe(`select version, status from ${SCHEMA}.governance_entities where id = $1 order by version`, [id])) as unknown as {
    version: number;
    status: string;
  }[];

let resourceType = '';
let types = 0;

/** A policy enabled before four-eyes mattered (written directly, as an earlier approval would have). */
async function enabledPolicy(): Promise<string> {
  const created = await as(AUTHOR, policies.createPolicy, {
    method: 'POST',
    path: `${API}/policies`,
    body: { name: `owner set ${++types}`, resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/policy` },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await database.sql.unsafe(`update ${SCHEMA}.governance_entities set status = 'enabled' where id = $1`, [id]);
  return id;
}

const publish = (caller: Caller, id: string) => as(caller, policies.publishPolicy, { method: 'POST', path: `${API}/policies/${id}/publish`, params: { id } });
const move = (caller: Caller, id: string, status: string) =>
  as(caller, policies.changeStatusOfPolicy, { method: 'POST', path: `${API}/policies/${id}/status`, params: { id }, body: { status } });
const decide = (caller: Caller, id: string, verb: 'approve' | 'reject', comment?: string) =>
  as(caller, verb === 'approve' ? approvals.approveRequest : approvals.rejectRequest, {
    method: 'POST',
    path: `${API}/approvals/${id}/${verb}`,
    params: { id },
    body: comment === undefined ? {} : { comment },
  });
const waive = (caller: Caller, body: Record<string, unknown>) => as(caller, exceptions.createException, { method: 'POST', path: `${API}/exceptions`, body });
const evaluate = async (owner: string) => {
  const response = await as(CI_JOB, evaluation.evaluate, {
    method: 'POST',
    path: `${API}/evaluate`,
    body: { environment: 'production', resourceType, descriptor: `id: urn:dp:sales\nowner: ${owner}\n` },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { passed: boolean; evaluationResults: { outcome: string }[] };
};

const approvalNotices = () =>
  platform.requests
    .filter((request) => request.path === '/api/notifications' && String(request.body.event).startsWith('governance-approval'))
    .map((request) => request.body);

beforeAll(async () => {
  await engine.start();
  await platform.start();
  await useHandlersOn(
    SCHEMA,
    `computational-governance-platform {
      platform-services { base-url = "${platform.url}", http-secret = "platform-secret" }
      notification { enabled = true, url = "${platform.url}/api/notifications", secret = "notification-secret" }
      authorization {
        four-eyes.enabled = true
        bindings = [
          { subjects = ["bo-approver"], roles = [approver] }
          { groups = ["governance-board"], roles = [approver], environments = ["production"] }
          { subjects = ["other-type-approver"], roles = [approver], resource-types = ["someone-elses"] }
        ]
      }
    }`,
  );
  database = await testDatabase(SCHEMA);
  approvals = await import('../../functions/governance/approvals');
  policies = await import('../../functions/governance/policies');
  exceptions = await import('../../functions/governance/exceptions');
  evaluation = await import('../../functions/governance/evaluation');
  outboxDispatcher = await import('../../functions/schedules/outbox-dispatcher');
});

beforeEach(async () => {
  await backgroundDispatchSettled();
  resourceType = `dataproduct-${++types}`;
  // A resource type is a setting of the service: under four-eyes, a request someone else approves.
  const requested = await as(ADMIN, (await import('../../functions/governance/resource-types')).registerResourceType, {
    method: 'POST',
    path: `${API}/resource-types`,
    body: { name: resourceType, configuration: { resourceName: 'id' }, resolverConfiguration: { url: engine.url, path: '/resources' } },
  });
  expect(requested.status).toBe(202);
  expect((await decide(APPROVER, requested.body.approvalId, 'approve')).status).toBe(200);
  await backgroundDispatchSettled();
  platform.reset();
});

afterAll(async () => {
  await backgroundDispatchSettled();
  await releaseHandlers();
  await database.close();
  await engine.stop();
  await platform.stop();
});

describe('the attacks of a CI job on the gate that refuses it', () => {
  it('its technical token (reader, evaluator) can evaluate, and can neither waive, demote, rewrite, publish, re-point the resolver nor replace the LLM', async () => {
    const id = await enabledPolicy();
    expect((await evaluate('nobody')).passed).toBe(false);
    const refused = [
      await waive(CI_JOB, { policyId: id, resourceId: '*', reason: 'ship it', expiresAt: inDays(90) }),
      await move(CI_JOB, id, 'grace'),
      await as(CI_JOB, policies.updatePolicy, {
        method: 'PUT',
        path: `${API}/policies/${id}`,
        params: { id },
        body: { name: 'weaker', resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/always-true` },
      }),
      await publish(CI_JOB, id),
      await as(CI_JOB, (await import('../../functions/governance/resource-types')).registerResourceType, {
        method: 'POST',
        path: `${API}/resource-types`,
        body: { name: resourceType, resolverConfiguration: { url: 'http://127.0.0.1:9', path: '/mine' } },
      }),
      await as(CI_JOB, (await import('../../functions/assistant/llm-config')).saveLlmConfig, {
        method: 'POST',
        path: '/assistant/v1/llm/config',
        body: { provider: 'azure-openai', endpoint: 'http://127.0.0.1:9', apiKey: 'k', deployment: 'd', apiVersion: '2024-10-21' },
      }),
    ];
    expect(refused.map((response) => response.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(refused.map((response) => response.body.permission)).toEqual([
      'exceptions:write',
      'policies:publish',
      'policies:edit',
      'policies:publish',
      'resource-types:manage',
      'models:manage',
    ]);
    expect(await entityRow(id)).toEqual([{ version: 1, status: 'enabled' }]);
    expect((await evaluate('nobody')).passed).toBe(false);
  });

  it('an author may not waive every resource (`*`, `**`, `?*`): that needs exceptions:waive-all (admin)', async () => {
    const id = await enabledPolicy();
    for (const resourceId of ['*', '**', '?*']) {
      const response = await waive(AUTHOR, { policyId: id, resourceId, reason: 'ship it', expiresAt: inDays(30) });
      expect(response.status, resourceId).toBe(403);
      expect(response.body.permission).toBe('exceptions:waive-all');
    }
    // An admin may ask for it, and it is still a request someone else approves.
    expect((await waive(ADMIN, { policyId: id, resourceId: '*', reason: 'incident', expiresAt: inDays(1) })).status).toBe(202);
  });
});

describe('four-eyes', () => {
  it('an exception is a request: pending, it waives nothing; its requester cannot approve it; approved, it waives and names both', async () => {
    const id = await enabledPolicy();
    const asked = await waive(AUTHOR, { policyId: id, resourceId: 'urn:dp:sales', environment: 'production', reason: 'migration', expiresAt: inDays(30) });
    expect(asked.status).toBe(202);
    expect(asked.headers.location).toBe(`${API}/approvals/${asked.body.approvalId}`);
    expect(asked.body).toMatchObject({
      kind: 'exception',
      status: 'pending',
      requestedBy: 'ana-author',
      entity: { id, resourceType, environment: 'production' },
    });
    expect(asked.body.diff.changes).toContainEqual({ field: 'resourceId', before: null, after: 'urn:dp:sales' });
    // How many resources it matches now, of those the policy has results for: none yet.
    expect(asked.body.diff.matchedResources).toBe(0);
    expect((await database.sql.unsafe(`select count(*)::int as n from ${SCHEMA}.governance_exceptions`))[0].n).toBe(0);
    expect((await evaluate('nobody')).passed).toBe(false);

    const self = await decide(AUTHOR, asked.body.approvalId, 'approve');
    expect(self.status).toBe(403);
    expect(self.body.detail).toContain('Four-eyes');
    expect(self.body.rule).toBe('four-eyes');
    // Nor under a look-alike of their name: the same person written otherwise (403), or a name made to
    // imitate it, refused at authentication (401).
    for (const [sub, status] of [
      ['ANA-AUTHOR', 403],
      ['\uff41na-author', 403],
      [' ana-author', 401],
      ['ana-author\t', 401],
      ['\u0430na-author', 401],
      ['ana\u200d-author', 401],
    ] as const)
      expect((await decide({ sub, roles: ['approver'] }, asked.body.approvalId, 'approve')).status, JSON.stringify(sub)).toBe(status);
    // Whatever their roles: an admin who asked cannot approve their own request either.
    const adminAsked = await waive(ADMIN, { policyId: id, resourceId: 'urn:dp:hr', reason: 'x', expiresAt: inDays(3) });
    expect((await decide(ADMIN, adminAsked.body.approvalId, 'approve')).status).toBe(403);
    // An approver of another resource type is out of scope.
    const outside = await decide({ sub: 'other-type-approver' }, asked.body.approvalId, 'approve');
    expect(outside.status).toBe(403);
    expect(outside.body.permission).toBe('approvals:decide');

    const approved = await decide(APPROVER, asked.body.approvalId, 'approve', 'ticket GOV-7 checked');
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'approved',
      decidedBy: 'bo-approver',
      comment: 'ticket GOV-7 checked',
      outcome: { exceptionId: expect.any(String) },
    });
    const exception = await as(CI_JOB, exceptions.getException, {
      method: 'GET',
      path: `${API}/exceptions/${approved.body.outcome.exceptionId}`,
      params: { id: approved.body.outcome.exceptionId },
    });
    expect(exception.body).toMatchObject({ requestedBy: 'ana-author', createdBy: 'ana-author', approvedBy: 'bo-approver' });
    const report = await evaluate('nobody');
    expect(report.passed).toBe(true);
    expect(report.evaluationResults[0].outcome).toBe('waived');
    // Decided once: a second decision is a conflict.
    const again = await decide(APPROVER, asked.body.approvalId, 'reject');
    // The problem's status is the HTTP status; the request's own is beside it.
    expect(again).toMatchObject({ status: 409, body: { status: 409, requestStatus: 'approved' } });
  });

  it('a publish is a request; approved, the version is enabled and its evaluation starts, the report named by the request', async () => {
    const created = await as(AUTHOR, policies.createPolicy, {
      method: 'POST',
      path: `${API}/policies`,
      body: { name: 'new rule', resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/policy` },
    });
    const id = created.body.id as string;
    const asked = await publish(AUTHOR, id);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ kind: 'publish', status: 'pending', diff: { enforcedVersion: null, requestedVersion: 1 } });
    expect(asked.body.diff.changes[0]).toEqual({ field: 'status', before: 'draft', after: 'enabled' });
    expect(await entityRow(id)).toEqual([{ version: 1, status: 'draft' }]);
    // The approver decides on figures: the request carries an impact report of the version, started with it.
    const { impactReportId } = asked.body.diff;
    expect(impactReportId).toMatch(/^[0-9a-f-]{36}$/);
    const { getImpactReport } = await import('../../functions/governance/impact-reports');
    const impact = await as(APPROVER, getImpactReport, { method: 'GET', path: `${API}/impact-reports/${impactReportId}`, params: { id: impactReportId } });
    expect(impact.body).toMatchObject({ policyId: id, candidateVersion: 1, baselineVersion: null, createdBy: 'ana-author' });
    // One pending publish per entity (and no second impact run for it).
    expect((await publish(AUTHOR, id)).status).toBe(409);
    expect((await database.sql.unsafe(`select count(*)::int as n from ${SCHEMA}.impact_reports where entity_id = $1`, [id]))[0].n).toBe(1);
    // Even an admin's publish is a request.
    const approved = await decide(ADMIN, asked.body.approvalId, 'approve');
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.outcome).toEqual({ version: 1, evaluationReportId: expect.any(String) });
    expect(await entityRow(id)).toEqual([{ version: 1, status: 'enabled' }]);
    const listed = await as(CI_JOB, approvals.listApprovals, { method: 'GET', path: `${API}/approvals`, query: { status: 'approved', kind: 'publish' } });
    expect(listed.body.data.map((approval: Approval) => approval.id)).toContain(asked.body.approvalId);
  });

  it('an evidence pack shows, with the version a publish put in force and an exception, the requests that did it: who asked, who decided, when, the comment', async () => {
    const created = await as(AUTHOR, policies.createPolicy, {
      method: 'POST',
      path: `${API}/policies`,
      body: { name: 'evidenced rule', resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/policy` },
    });
    const id = created.body.id as string;
    const published = await publish(AUTHOR, id);
    expect((await decide(APPROVER, published.body.approvalId, 'approve', 'checked the impact report')).status).toBe(200);
    const waived = await waive(AUTHOR, { policyId: id, resourceId: 'urn:dp:sales', environment: 'production', reason: 'migration', expiresAt: inDays(30) });
    expect((await decide(APPROVER, waived.body.approvalId, 'approve', 'until the migration ends')).status).toBe(200);

    const ctx = await governance();
    const { requestEvidence } = await import('#lib/governance/evidence/evidence-service');
    const { EvidenceRepository } = await import('#lib/governance/evidence/evidence-repository');
    const { buildPack } = await import('#lib/governance/evidence/pack-builder');
    const asked = await requestEvidence(ctx, { resourceTypes: [resourceType] }, 'an-auditor');
    const row = await new EvidenceRepository(ctx.database).find(asked.evidenceId);
    expect(row).toBeDefined();
    const parts: Buffer[] = [];
    await buildPack(ctx, row as NonNullable<typeof row>, async (part, bytes) => {
      parts[part] = bytes;
    });
    const files = (await import('#lib/governance/evidence/pack-format')).unzipPack(Buffer.concat(parts));
    const lines = (file: string) =>
      Buffer.from(files.get(file) as Uint8Array)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    expect(lines('approvals.ndjson')).toEqual([
      expect.objectContaining({
        id: published.body.approvalId,
        kind: 'publish',
        policyId: id,
        version: 1,
        requestedBy: 'ana-author',
        decidedBy: 'bo-approver',
        comment: 'checked the impact report',
      }),
    ]);
    expect(lines('exceptions.ndjson')).toEqual([
      expect.objectContaining({
        policyId: id,
        resourceId: 'urn:dp:sales',
        createdBy: 'ana-author',
        approval: expect.objectContaining({
          id: waived.body.approvalId,
          requestedBy: 'ana-author',
          decidedBy: 'bo-approver',
          comment: 'until the migration ends',
        }),
      }),
    ]);
  });

  it('a dated rollout is a request too: approved, it is scheduled naming its approver, and enables the version at its date', async () => {
    const id = await enabledPolicy();
    await database.sql.unsafe(`update ${SCHEMA}.governance_entities set status = 'grace' where id = $1`, [id]);
    const schedule = (caller: Caller) =>
      as(caller, policies.scheduleRolloutOfPolicy, { method: 'POST', path: `${API}/policies/${id}/rollout`, params: { id }, body: { enableAt: inDays(3) } });
    const asked = await schedule(ADMIN);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ kind: 'rollout', status: 'pending', request: { version: 1, from: 'grace', to: 'enabled', notifyDaysBefore: 7 } });
    const rollout = () => as(CI_JOB, policies.getRolloutOfPolicy, { method: 'GET', path: `${API}/policies/${id}/rollout`, params: { id } });
    expect((await rollout()).status).toBe(404);
    // Its requester cannot approve it, not even an admin.
    expect((await decide(ADMIN, asked.body.approvalId, 'approve')).status).toBe(403);
    const approved = await decide(APPROVER, asked.body.approvalId, 'approve');
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await rollout()).body).toMatchObject({ status: 'scheduled', version: 1, createdBy: 'root-admin', approvedBy: 'bo-approver' });
    expect(approved.body.outcome).toEqual({ rolloutId: (await rollout()).body.id, version: 1, enableAt: asked.body.request.enableAt });

    // Its date comes (moved in the database): the scheduler enables the version, as the rollout's author.
    await database.sql.unsafe(`update ${SCHEMA}.rollouts set enable_at = now() - interval '1 second' where entity_id = $1`, [id]);
    const { runDueRollouts } = await import('#lib/governance/rollouts/rollout-service');
    expect(await runDueRollouts(await governance())).toMatchObject({ enabled: 1, failed: 0 });
    expect(await entityRow(id)).toEqual([{ version: 1, status: 'enabled' }]);
    expect((await rollout()).body).toMatchObject({ status: 'done', endedBy: 'rollout-scheduler' });
  });

  it('a weaker edit of an enabled policy: the diff shows what changes; an edit after the request makes its approval a conflict', async () => {
    const id = await enabledPolicy();
    const weaker = { name: 'owner set, weaker', resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/always-true` };
    const edited = await as(AUTHOR, policies.updatePolicy, { method: 'PUT', path: `${API}/policies/${id}`, params: { id }, body: weaker });
    expect(edited.status).toBe(201);
    const asked = await publish(AUTHOR, id);
    expect(asked.body.diff).toMatchObject({ enforcedVersion: 1, requestedVersion: 2 });
    expect(asked.body.diff.changes).toContainEqual({ field: 'remoteEngineUrl', before: `${engine.url}/policy`, after: `${engine.url}/always-true` });
    expect(asked.body.diff.patch).toContain(`+${engine.url}/always-true`);
    // The draft changes after the approver was asked: what they would approve is not what they saw.
    await as(AUTHOR, policies.updatePolicy, { method: 'PUT', path: `${API}/policies/${id}`, params: { id }, body: { ...weaker, description: 'sneaky' } });
    const late = await decide(APPROVER, asked.body.approvalId, 'approve');
    expect(late.status).toBe(409);
    expect(late.body.detail).toContain('changed since');
    expect(await entityRow(id)).toEqual([
      { version: 1, status: 'enabled' },
      { version: 2, status: 'draft' },
    ]);
  });

  it('a status move is a request; rejected, nothing moves; a demotion by a draft (draft -> grace) is a request too', async () => {
    const id = await enabledPolicy();
    const asked = await move(AUTHOR, id, 'grace');
    expect(asked.status).toBe(202);
    expect(asked.body.diff.changes).toContainEqual({ field: 'status', before: 'enabled', after: 'grace' });
    const rejected = await decide(APPROVER, asked.body.approvalId, 'reject', 'no: the owners must fix it');
    expect(rejected.body).toMatchObject({ status: 'rejected', decidedBy: 'bo-approver', comment: 'no: the owners must fix it', outcome: null });
    expect(await entityRow(id)).toEqual([{ version: 1, status: 'enabled' }]);
    expect((await evaluate('nobody')).passed).toBe(false);
    // An illegal move is refused at once, not at approval.
    expect((await move(AUTHOR, id, 'enabled')).status).toBe(409);
    // A new draft moved to grace would replace the enabled version: a request as well.
    await as(AUTHOR, policies.updatePolicy, {
      method: 'PUT',
      path: `${API}/policies/${id}`,
      params: { id },
      body: { name: 'softer', resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/policy` },
    });
    const demotion = await move(AUTHOR, id, 'grace');
    expect(demotion.status).toBe(202);
    expect(demotion.body.diff).toMatchObject({ enforcedVersion: 1, requestedVersion: 2 });
    expect(await entityRow(id)).toEqual([
      { version: 1, status: 'enabled' },
      { version: 2, status: 'draft' },
    ]);
  });

  it('a request expires after authorization.four-eyes.expiry: it reads expired and cannot be approved', async () => {
    const id = await enabledPolicy();
    const asked = await move(AUTHOR, id, 'disabled');
    await database.sql.unsafe(`update ${SCHEMA}.approvals set expires_at = now() - interval '1 second' where id = $1`, [asked.body.approvalId]);
    const read = await as(CI_JOB, approvals.getApproval, {
      method: 'GET',
      path: `${API}/approvals/${asked.body.approvalId}`,
      params: { id: asked.body.approvalId },
    });
    expect(read.body.status).toBe('expired');
    expect((await decide(APPROVER, asked.body.approvalId, 'approve')).status).toBe(409);
    expect(await entityRow(id)).toEqual([{ version: 1, status: 'enabled' }]);
    const pending = await as(CI_JOB, approvals.listApprovals, { method: 'GET', path: `${API}/approvals`, query: { status: 'pending' } });
    expect(pending.body.data.map((approval: Approval) => approval.id)).not.toContain(asked.body.approvalId);
  });

  it('two approvers at once: one approval applies, the other is a conflict, and one exception is written', async () => {
    const id = await enabledPolicy();
    const asked = await waive(AUTHOR, { policyId: id, resourceId: 'urn:dp:twice', reason: 'r', expiresAt: inDays(5) });
    const answers = await Promise.all([
      decide(APPROVER, asked.body.approvalId, 'approve'),
      decide({ sub: 'cy-admin', roles: ['admin'] }, asked.body.approvalId, 'approve'),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const written = await database.sql.unsafe(`select approved_by from ${SCHEMA}.governance_exceptions where resource_id = 'urn:dp:twice'`);
    expect(written).toHaveLength(1);
    expect(written[0].approved_by).toBe(answers.find((answer) => answer.status === 200)?.body.decidedBy);
  });

  it('tells the approvers in scope of a request, and its requester of the decision, through the outbox', async () => {
    const id = await enabledPolicy();
    const asked = await waive(AUTHOR, { policyId: id, resourceId: 'urn:dp:x', environment: 'production', reason: 'r', expiresAt: inDays(5) });
    await decide(APPROVER, asked.body.approvalId, 'reject');
    await backgroundDispatchSettled();
    await outboxDispatcher.handler();
    const [requested, decided] = approvalNotices();
    expect(requested).toMatchObject({
      event: 'governance-approval-requested',
      recipients: { subjects: ['bo-approver'], groups: ['governance-board'] },
      approval: { id: asked.body.approvalId, kind: 'exception', status: 'pending', requestedBy: 'ana-author' },
    });
    expect(decided).toMatchObject({
      event: 'governance-approval-decided',
      recipients: { subjects: ['ana-author'], groups: [] },
      approval: { id: asked.body.approvalId, status: 'rejected', decidedBy: 'bo-approver' },
    });
  });

  it('ends the pending request about a draft when the draft is deleted, instead of leaving it pending until it expires', async () => {
    const created = await as(AUTHOR, policies.createPolicy, {
      method: 'POST',
      path: `${API}/policies`,
      body: { name: `short-lived ${++types}`, resourceType, engine: 'remote', remoteEngineUrl: `${engine.url}/policy` },
    });
    const id = created.body.id as string;
    const asked = await publish(AUTHOR, id);
    expect(asked.status).toBe(202);
    expect((await as(AUTHOR, policies.deletePolicy, { method: 'DELETE', path: `${API}/policies/${id}`, params: { id } })).status).toBe(204);
    const ended = await as(APPROVER, approvals.getApproval, {
      method: 'GET',
      path: `${API}/approvals/${asked.body.approvalId}`,
      params: { id: asked.body.approvalId },
    });
    expect(ended.body).toMatchObject({ status: 'expired', comment: 'Ended: what it concerns was deleted', decidedBy: null });
    expect(await decide(APPROVER, asked.body.approvalId, 'approve')).toMatchObject({ status: 409, body: { requestStatus: 'expired' } });
  });
});
