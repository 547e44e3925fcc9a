import { describe, expect, inject, it } from 'vitest';
import { authorized } from '../support/tokens';

const baseUrl = inject('baseUrl');

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
    expect(await read.json()).toMatchObject({ name: 'e2e-type', descriptorConfiguration: { resourceNameField: 'PLATFORM_no_descriptor_configuration_provided', resourceDisplayNameFields: [], resourceFilterField: null } });
  });
});

describe('the whole flow over HTTP: type, CUE policy, publish, evaluate, report', () => {
  const api = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}/v1/computational-governance${route}`, {
      method,
      headers: await authorized({ 'content-type': 'application/json', ...headers }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('gates a descriptor on an enabled CUE policy and keeps the result', async () => {
    await api('POST', '/resource-types', {
      name: 'e2e-dataproduct',
      configuration: { resourceName: 'id', resourceDisplayName: ['name'], resourceFilter: 'version' },
      resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' },
    });
    const created = await api('POST', '/policies', {
      name: 'Owner is a login',
      resourceType: 'e2e-dataproduct',
      environment: 'development',
      engine: 'cue',
      cueScript: 'owner: string & =~"^[a-z]+$"\ndomain: "finance" | "sales"\n',
    });
    expect(created.status).toBe(201);
    expect((await api('POST', `/policies/${created.body.id}/publish`)).body.status).toBe('enabled');

    const failing = await api('POST', '/evaluate', { environment: 'development', resourceType: 'e2e-dataproduct', descriptor: 'id: urn:dp:e2e\nname: E2E\nversion: 1.0.0\nowner: Alice\ndomain: finance\n' }, { prefer: 'wait=20' });
    expect(failing.status).toBe(200);
    expect(failing.body).toMatchObject({ status: 'completed', outcome: 'error', passed: false });
    expect(failing.body.evaluationResults[0]).toMatchObject({ governanceEntityId: created.body.id, resource: { id: 'urn:dp:e2e', displayName: 'E2E', version: '1.0.0' }, result: { satisfiesPolicy: false } });
    expect(failing.body.evaluationResults[0].result.errors.join('\n')).toMatch(/owner/);

    const passing = await api('POST', '/evaluate', { environment: 'development', resourceType: 'e2e-dataproduct', descriptor: { id: 'urn:dp:e2e', name: 'E2E', version: '1.0.1', owner: 'alice', domain: 'sales' } });
    expect(passing.status).toBe(202);
    const report = await api('GET', `/evaluation-reports/${passing.body.reportId}`);
    expect(report.body).toMatchObject({ status: 'completed', outcome: 'ok', passed: true });

    const latest = await api('GET', `/results?resourceId=urn:dp:e2e&latest=true`);
    expect(latest.body.data.map((result: any) => result.resource.version)).toEqual(['1.0.1']);
  });
});
