import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Database } from '#lib/db/client';
import { runStartupTasks } from '#lib/startup/startup-tasks';

import type * as resourceTypesModule from '../../functions/governance/resource-types';
import { testDatabase, testSettings } from '../support/database';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { invoke } from '../support/invoke';

const SCHEMA = 'it_resource_types';
const SETTINGS_TYPES = `computational-governance-platform.resource-types = [
  { name = "dataproduct", display-name = "Data product", configuration { resource-name = "id", resource-display-name = ["name"], resource-filter = "version", batch-size = "50" }, resolver-configuration { url = "http://resolver.test", path = "/v1/resources" } }
  { name = "pipeline", resolver-configuration { url = "http://resolver.test", path = "/v1/pipelines" } }
]`;

let database: Database;
let handlers: typeof resourceTypesModule;

const register = (body: unknown) => invoke(handlers.registerResourceType, { method: 'POST', path: '/v1/computational-governance/resource-types', body });
const read = (name: string, path = `/v1/resource-types/${name}`) =>
  invoke(path.startsWith('/v1/resource-types') ? handlers.getResourceType : handlers.getGovernanceResourceType, { method: 'GET', path, params: { name } });

beforeAll(async () => {
  await useHandlersOn(SCHEMA, SETTINGS_TYPES);
  database = await testDatabase(SCHEMA);
  handlers = await import('../../functions/governance/resource-types');
});

afterAll(async () => {
  await releaseHandlers();
  await database.close();
});

const api = {
  name: 'dataset',
  displayName: 'Dataset',
  configuration: { resourceName: 'id', resourceDisplayName: ['title', 'domain'], resourceFilter: 'version', batchSize: 20 },
  resolverConfiguration: { url: 'http://resolver.test', path: '/v1/datasets' },
};

describe('resource types from the settings', () => {
  it('are registered at start, with their configuration', async () => {
    const response = await read('dataproduct');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: 'dataproduct',
      displayName: 'Data product',
      descriptorConfiguration: { resourceNameField: 'id', resourceDisplayNameFields: ['name'], resourceFilterField: 'version', batchSize: 50 },
      resolverConfiguration: { url: 'http://resolver.test', path: '/v1/resources' },
      source: 'settings',
    });
  });

  it('show the seed defaults when they have no descriptor configuration', async () => {
    const response = await read('pipeline', '/v1/computational-governance/resource-types/pipeline');
    expect(response.status).toBe(200);
    expect(response.body.displayName).toBe('pipeline');
    expect(response.body.descriptorConfiguration).toEqual({
      resourceNameField: 'PLATFORM_no_descriptor_configuration_provided',
      resourceDisplayNameFields: [],
      resourceFilterField: null,
      resourceOwnerField: null,
      batchSize: 100,
    });
  });

  it('overwrite a type of the same name at the next start, and write nothing when unchanged', async () => {
    await register({ ...api, name: 'dataproduct', displayName: 'Changed through the API' });
    expect((await read('dataproduct')).body.source).toBe('api');
    const report = await runStartupTasks(await testSettings(SCHEMA, SETTINGS_TYPES));
    expect(report.tasks.resourceTypes).toBe('0 registered, 1 replaced, 1 unchanged');
    expect((await read('dataproduct')).body).toMatchObject({ displayName: 'Data product', source: 'settings' });
    const again = await runStartupTasks(await testSettings(SCHEMA, SETTINGS_TYPES));
    expect(again.tasks.resourceTypes).toBe('0 registered, 0 replaced, 2 unchanged');
  });
});

describe('the resource types API', () => {
  beforeEach(async () => {
    await database.sql.unsafe(`delete from ${SCHEMA}.resource_types where source = 'api'`);
  });

  it('registers (201), replaces (200) and reads back under both paths', async () => {
    const created = await register(api);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'dataset',
      descriptorConfiguration: { resourceNameField: 'id', resourceDisplayNameFields: ['title', 'domain'], resourceFilterField: 'version', batchSize: 20 },
      createdBy: 'test-caller',
    });
    const replaced = await register({ ...api, displayName: 'Data set' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.displayName).toBe('Data set');
    expect((await read('dataset')).body).toEqual(replaced.body);
    expect((await read('dataset', '/v1/computational-governance/resource-types/dataset')).body).toEqual(replaced.body);
  });

  it('lists by name with pagination', async () => {
    await register(api);
    await register({ ...api, name: 'another' });
    const page = await invoke(handlers.listResourceTypes, {
      method: 'GET',
      path: '/v1/computational-governance/resource-types',
      query: { limit: '2', offset: '1' },
    });
    expect(page.status).toBe(200);
    expect(page.body.meta.pagination).toEqual({ limit: 2, offset: 1, total: 4 });
    expect(page.body.data.map((type: { name: string }) => type.name)).toEqual(['dataproduct', 'dataset']);
    const bad = await invoke(handlers.listResourceTypes, { method: 'GET', path: '/v1/computational-governance/resource-types', query: { limit: '501' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'query.limit', message: 'limit must be at most 500' }]);
  });

  it('answers 404 for an unknown name and deletes (204) a known one', async () => {
    expect((await read('nope')).status).toBe(404);
    await register(api);
    const removed = await invoke(handlers.deleteResourceType, {
      method: 'DELETE',
      path: '/v1/computational-governance/resource-types/dataset',
      params: { name: 'dataset' },
    });
    expect(removed.status).toBe(204);
    expect((await read('dataset')).status).toBe(404);
    const again = await invoke(handlers.deleteResourceType, {
      method: 'DELETE',
      path: '/v1/computational-governance/resource-types/dataset',
      params: { name: 'dataset' },
    });
    expect(again.status).toBe(404);
  });

  it.each([
    ['name', { name: 'bad name!' }, 'name must be'],
    ['resolverConfiguration.url', { resolverConfiguration: { url: 'resolver.test', path: '/x' } }, 'absolute http(s) URL'],
    ['resolverConfiguration.url', { resolverConfiguration: { url: 'http://me:secret@r.test', path: '/x' } }, 'must not carry credentials'],
    ['resolverConfiguration.url', { resolverConfiguration: { url: 'http://r.test?key=secret', path: '/x' } }, 'must not carry a query'],
    ['resolverConfiguration.path', { resolverConfiguration: { url: 'http://r.test', path: 'x' } }, 'must start with "/"'],
    ['configuration.batchSize', { configuration: { resourceName: 'id', batchSize: 0 } }, 'positive integer'],
    ['configuration.batchSize', { configuration: { resourceName: 'id', batchSize: -5 } }, 'positive integer'],
    ['configuration.batchSize', { configuration: { resourceName: 'id', batchSize: 'ten' } }, 'positive integer'],
    ['configuration.batchSize', { configuration: { resourceName: 'id', batchSize: 10_001 } }, 'expected at most 10000'],
    ['configuration.resourceName', { configuration: { batchSize: 5 } }, 'resourceName must be a string'],
    ['resolverConfiguration', { resolverConfiguration: undefined }, 'resolverConfiguration { url, path } is required'],
  ])('rejects a bad %s with a 400 naming it, storing nothing', async (path, overrides, message) => {
    const response = await register({ ...api, ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path, message: expect.stringContaining(message) }]);
    expect(await database.sql.unsafe(`select 1 from ${SCHEMA}.resource_types where source = 'api'`)).toHaveLength(0);
  });
});
