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
