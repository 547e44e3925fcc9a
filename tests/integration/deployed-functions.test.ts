import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { LambdaHttpHandler } from '#lib/http/handler';

import { apiGatewayEvent, lambdaContext } from '../support/api-gateway-event';
import { releaseHandlers, useHandlersOn } from '../support/handlers';
import { authorized } from '../support/tokens';

/**
 * The deployed functions (functions/units/) route each request to its endpoint's handler: on the path
 * API Gateway matched, with the path parameters it decoded, and a 404 problem for what they do not serve.
 */

const SCHEMA = 'it_deployed_functions';

let units: Record<'service' | 'catalog' | 'console', LambdaHttpHandler>;

/** A request as API Gateway sends it to a function: the route it matched, its parameters, and the request's own path. */
async function send(unit: LambdaHttpHandler, request: { method?: string; routeKey: string; rawPath: string; params?: Record<string, string> }) {
  const method = request.method ?? request.routeKey.split(' ')[0];
  const event: APIGatewayProxyEventV2 = apiGatewayEvent({ method, path: request.rawPath, params: request.params, headers: await authorized({}) });
  const routed = { ...event, routeKey: request.routeKey, requestContext: { ...event.requestContext, routeKey: request.routeKey } };
  const response = await unit(routed, lambdaContext());
  const headers = response.headers ?? {};
  return { status: response.statusCode, body: String(headers['content-type']).includes('json') ? JSON.parse(response.body ?? '') : response.body, headers };
}

beforeAll(async () => {
  await useHandlersOn(SCHEMA);
  units = {
    service: (await import('../../functions/units/service')).handler,
    catalog: (await import('../../functions/units/catalog')).handler,
    console: (await import('../../functions/units/console')).handler,
  };
});

afterAll(releaseHandlers);

describe('a deployed function', () => {
  it("answers its endpoints, and API Gateway's $default route with a 404 problem naming the request", async () => {
    expect(await send(units.service, { routeKey: 'GET /health', rawPath: '/health' })).toMatchObject({ status: 200, body: { status: 'ok' } });
    const unknown = await send(units.service, { method: 'GET', routeKey: '$default', rawPath: '/v2/nothing-here' });
    expect(unknown).toMatchObject({ status: 404, headers: { 'content-type': 'application/problem+json' } });
    expect(unknown.body.detail).toBe('No endpoint answers GET /v2/nothing-here');
  });

  it('gives the endpoint the path parameter API Gateway decoded', async () => {
    const missing = await send(units.catalog, {
      routeKey: 'GET /v1/computational-governance/resource-types/{name}',
      rawPath: '/v1/computational-governance/resource-types/%6Dissing-type',
      params: { name: 'missing-type' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain('"missing-type"');
  });

  it("routes behind a custom domain's API mapping, whose key starts the request's path", async () => {
    expect(await send(units.service, { routeKey: 'GET /health', rawPath: '/governance/health' })).toMatchObject({ status: 200 });
    const page = await send(units.console, { routeKey: 'GET /console', rawPath: '/governance/console' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it("answers a route of another function with the 404 problem, never another endpoint's answer", async () => {
    const elsewhere = await send(units.catalog, { routeKey: 'GET /health', rawPath: '/health' });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.detail).toBe('No endpoint answers GET /health');
  });
});
