import { readFileSync } from 'node:fs';

import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';

import { catalogue } from '#lib/api/catalogue';
import { openApiDocument } from '#lib/api/openapi-document';

/** The routes of the console's page and assets: served by the application, not part of its API (docs/console.md). */
const CONSOLE_ROUTES = ['GET /console', 'GET /console/{proxy+}'];

/** The httpApi routes of serverless.yml, as "METHOD /path", the console's aside. */
function serverlessRoutes(): string[] {
  const yaml = readFileSync('serverless.yml', 'utf8');
  return [...yaml.matchAll(/-\s*httpApi:\s*'?([A-Z]+)\s+(\/[^'\s]*)'?/g)]
    .map((match) => `${match[1]} ${match[2]}`)
    .filter((route) => !CONSOLE_ROUTES.includes(route));
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3', async () => {
    const document = openApiDocument();
    expect(document.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('has every endpoint of the catalogue, with its operation id', () => {
    const document = openApiDocument();
    for (const endpoint of catalogue) {
      expect(document.paths[endpoint.path]?.[endpoint.method.toLowerCase() as 'get']?.operationId, `${endpoint.method} ${endpoint.path}`).toBe(
        endpoint.operationId,
      );
    }
  });

  it('and the catalogue has exactly the routes serverless.yml deploys (and the console has its own)', () => {
    const yaml = readFileSync('serverless.yml', 'utf8');
    for (const route of CONSOLE_ROUTES) expect(yaml).toContain(`- httpApi: ${route}\n`);
    const routes = serverlessRoutes();
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.sort()).toEqual(catalogue.map((endpoint) => `${endpoint.method} ${endpoint.path}`).sort());
  });
});
