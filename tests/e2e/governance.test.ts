import { readFileSync } from 'node:fs';

import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { EvaluationReport, EvaluationResult } from '#lib/governance/evaluation/report';
import type { EntityRepresentation } from '#lib/governance/policies/entity';

import { FakeServer } from '../fakes/fake-server';
import { authorized } from '../support/tokens';

const baseUrl = inject('baseUrl');

/** A call to the governance API of serverless offline, with a technical JWT. */
async function api<T = Record<string, unknown>>(method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/v1/computational-governance${route}`, {
    method,
    headers: await authorized({ 'content-type': 'application/json', ...headers }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** The report once it has ended (polled for up to a minute). */
async function finishedReport(reportId: string): Promise<EvaluationReport> {
  for (let poll = 1; ; poll++) {
    const report = (await api<EvaluationReport>('GET', `/evaluation-reports/${reportId}`)).body;
    if (report.status === 'completed' || report.status === 'failed' || poll === 120) return report;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('governance foundations over HTTP', () => {
  it('lists the environments of the shipped settings', async () => {
    const response = await fetch(`${baseUrl}/v1/computational-governance/environments`, { headers: await authorized() });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { name: string; source: string }[] };
    expect(body.data.map((environment) => environment.name)).toEqual(['development', 'production', 'qa']);
    expect(new Set(body.data.map((environment) => environment.source))).toEqual(new Set(['settings']));
  });

  it('registers a resource type and reads it back under the seed path', async () => {
    const created = await fetch(`${baseUrl}/v1/computational-governance/resource-types`, {
      method: 'POST',
      headers: await authorized({ 'content-type': 'application/json' }),
      body: JSON.stringify({ name: 'e2e-type', resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' } }),
    });
    expect(created.status).toBe(201);
    const read = await fetch(`${baseUrl}/v1/resource-types/e2e-type`, { headers: await authorized() });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      name: 'e2e-type',
      descriptorConfiguration: { resourceNameField: 'PLATFORM_no_descriptor_configuration_provided', resourceDisplayNameFields: [], resourceFilterField: null },
    });
  });
});

describe('the whole flow over HTTP: type, CUE policy, publish, evaluate, report', () => {
  it('gates a descriptor on an enabled CUE policy and keeps the result', async () => {
    await api('POST', '/resource-types', {
      name: 'e2e-dataproduct',
      configuration: { resourceName: 'id', resourceDisplayName: ['name'], resourceFilter: 'version' },
      resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' },
    });
    const created = await api<EntityRepresentation>('POST', '/policies', {
      name: 'Owner is a login',
      resourceType: 'e2e-dataproduct',
      environment: 'development',
      engine: 'cue',
      cueScript: 'owner: string & =~"^[a-z]+$"\ndomain: "finance" | "sales"\n',
    });
    expect(created.status).toBe(201);
    expect((await api('POST', `/policies/${created.body.id}/publish`)).body.status).toBe('enabled');

    const failing = await api<EvaluationReport>(
      'POST',
      '/evaluate',
      { environment: 'development', resourceType: 'e2e-dataproduct', descriptor: 'id: urn:dp:e2e\nname: E2E\nversion: 1.0.0\nowner: Alice\ndomain: finance\n' },
      { prefer: 'wait=20' },
    );
    expect(failing.status).toBe(200);
    expect(failing.body).toMatchObject({ status: 'completed', outcome: 'error', passed: false });
    expect(failing.body.evaluationResults[0]).toMatchObject({
      governanceEntityId: created.body.id,
      resource: { id: 'urn:dp:e2e', displayName: 'E2E', version: '1.0.0' },
      result: { satisfiesPolicy: false },
    });
    expect(failing.body.evaluationResults[0].result.errors.join('\n')).toMatch(/owner/);

    const passing = await api('POST', '/evaluate', {
      environment: 'development',
      resourceType: 'e2e-dataproduct',
      descriptor: { id: 'urn:dp:e2e', name: 'E2E', version: '1.0.1', owner: 'alice', domain: 'sales' },
    });
    expect(passing.status).toBe(202);
    const report = await api('GET', `/evaluation-reports/${passing.body.reportId}`);
    expect(report.body).toMatchObject({ status: 'completed', outcome: 'ok', passed: true });

    const latest = await api<{ data: EvaluationResult[] }>('GET', `/results?resourceId=urn:dp:e2e&latest=true`);
    expect(latest.body.data.map((result) => result.resource.version)).toEqual(['1.0.1']);
  });
});

describe('publish-time evaluation under serverless offline', () => {
  /** 7 resources per environment; the third of each breaks the policy. */
  const resolver = new FakeServer((request) => {
    const all = Array.from({ length: 7 }, (_, i) => ({ id: `dp-${i}`, content: `id: dp-${i}\nowner: ${i === 2 ? 'Nobody' : 'alice'}\n` }));
    const offset = Number(request.query.offset);
    return {
      status: 200,
      body: { resources: all.slice(offset, offset + Number(request.query.limit)), page: { offset, limit: Number(request.query.limit), total: all.length } },
    };
  });
  beforeAll(() => resolver.start());
  afterAll(() => resolver.stop());

  it('publishing a CUE policy runs the queue worker over every environment until the report is completed', async () => {
    await api('POST', '/resource-types', {
      name: 'e2e-published',
      configuration: { resourceName: 'id', batchSize: 3 },
      resolverConfiguration: { url: resolver.url, path: '/resources' },
    });
    const created = await api<EntityRepresentation>('POST', '/policies', {
      name: 'Owner is a login',
      resourceType: 'e2e-published',
      engine: 'cue',
      cueScript: 'owner: string & =~"^[a-z]+$"\n',
    });
    expect(created.status).toBe(201);
    const published = await api<{ evaluationReportId: string }>('POST', `/policies/${created.body.id}/publish`);
    expect(published.status).toBe(200);
    const reportId = published.body.evaluationReportId;
    expect(reportId).toEqual(expect.any(String));

    const report = await finishedReport(reportId);
    expect(report).toMatchObject({
      status: 'completed',
      cause: 'publish',
      evaluationScope: 'policy',
      outcome: 'error',
      passed: false,
      progress: { total: 21, done: 21 },
    });
    const failing = report.evaluationResults
      .filter((result) => result.outcome === 'error')
      .map((result) => `${result.resource.environment}/${result.resource.id}`);
    expect(failing.sort()).toEqual(['development/dp-2', 'production/dp-2', 'qa/dp-2']);
    // Pages of 3 (the type's batch size) from offset 0 until the short page, in each of the 3 environments.
    expect(resolver.requests.map((r) => `${r.query.environment}:${r.query.offset}:${r.query.limit}`).sort()).toEqual(
      ['development', 'production', 'qa'].flatMap((environment) => [0, 3, 6].map((offset) => `${environment}:${offset}:3`)).sort(),
    );
    // The worker's metric lines (embedded metric format) are in the functions' log: the verdicts of each environment, by engine.
    const evaluations = (environment: string) =>
      metricLines()
        .filter((line) => line.engine === 'cue' && line.environment === environment && typeof line.Evaluations === 'number')
        .map((line) => [line.Evaluations, line._aws.CloudWatchMetrics[0].Dimensions]);
    await expect.poll(() => evaluations('qa')).toContainEqual([7, [['service', 'engine', 'environment']]]);
    for (const environment of ['development', 'production']) expect(evaluations(environment)).toContainEqual([7, [['service', 'engine', 'environment']]]);
  });
});

/** The metric lines (CloudWatch embedded metric format) serverless offline's functions have written so far. */
function metricLines(): { _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] }; [name: string]: unknown }[] {
  return readFileSync(inject('offlineLog'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"_aws"'))
    .map((line) => JSON.parse(line));
}

describe('cron policies under serverless offline', () => {
  const resolver = new FakeServer((request) => ({
    status: 200,
    body: { resources: Number(request.query.offset) === 0 ? [{ id: 'dp-1', content: 'id: dp-1\nowner: Nobody\n' }] : [] },
  }));
  beforeAll(() => resolver.start());
  afterAll(() => resolver.stop());

  it('the cronDispatcher function starts a due cron policy, whose run completes through the queue', async () => {
    await api('POST', '/resource-types', {
      name: 'e2e-cron',
      configuration: { resourceName: 'id', batchSize: 10 },
      resolverConfiguration: { url: resolver.url, path: '/resources' },
    });
    const created = await api<EntityRepresentation>('POST', '/policies', {
      name: 'Owner is a login, every five seconds',
      resourceType: 'e2e-cron',
      environment: 'qa',
      engine: 'cue',
      cueScript: 'owner: string & =~"^[a-z]+$"\n',
      timing: 'runtime',
      // Seconds, so that the test does not wait for a minute (the dispatcher itself looks every minute).
      cronExpression: '*/5 * * * * *',
    });
    expect(created.status).toBe(201);
    expect((await api('POST', `/policies/${created.body.id}/publish`)).status).toBe(200);

    // Invoked as its every-minute schedule does (through the Lambda endpoint), the dispatcher starts
    // the run once it is due (its own tick may come first); the schedule row names the run's report.
    const sql = postgres(inject('databaseUrl'), { max: 1, onnotice: () => undefined });
    let reportId: string | undefined;
    try {
      for (let attempt = 0; attempt < 80 && !reportId; attempt++) {
        const invoked = await fetch(`${inject('lambdaUrl')}/2015-03-31/functions/computational-governance-platform-dev-cron-dispatcher/invocations`, {
          method: 'POST',
          body: '{}',
        });
        expect(invoked.status).toBe(200);
        expect(await invoked.json()).toMatchObject({ started: expect.any(Array), unscheduled: 0 });
        [{ reportId } = { reportId: undefined }] = await sql`select last_report_id as "reportId" from e2e.cron_schedules where entity_id = ${created.body.id}`;
        if (!reportId) await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    } finally {
      await sql.end();
    }
    expect(reportId).toEqual(expect.any(String));
    const report = await finishedReport(reportId as string);
    expect(report).toMatchObject({ status: 'completed', cause: 'schedule', environment: 'qa', outcome: 'error', progress: { total: 1, done: 1 } });
  });
});
