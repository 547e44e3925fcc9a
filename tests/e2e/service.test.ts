import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, inject, it } from 'vitest';

import type { openApiDocument } from '#lib/api/openapi-document';

const baseUrl = inject('baseUrl');

describe('serverless offline', () => {
  it('answers GET /health with 200 and the database ok', async () => {
    const response = await fetch(`${baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', database: 'ok' });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers an unknown route with a 404 problem', async () => {
    const response = await fetch(`${baseUrl}/v1/no-such-thing`, { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 404, title: 'Not Found', detail: 'No endpoint answers DELETE /v1/no-such-thing' });
  });

  it('serves a valid OpenAPI 3 document at /openapi.json', async () => {
    const response = await fetch(`${baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as ReturnType<typeof openApiDocument>;
    expect(document.openapi).toMatch(/^3\.0\./);
    expect(Object.keys(document.paths)).toContain('/health');
    // The parser types documents with openapi-types, the generator with openapi3-ts: the same JSON, two typings.
    await expect(SwaggerParser.validate(document as never)).resolves.toBeDefined();
  });
});

describe('authentication over HTTP', () => {
  it('refuses a call without credentials with 401 and a Bearer challenge', async () => {
    const response = await fetch(`${baseUrl}/v1/computational-governance/environments`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Bearer realm="computational-governance"');
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });
});
