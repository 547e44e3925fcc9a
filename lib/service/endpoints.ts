import { z } from 'zod';

import { endpoint } from '#lib/http/endpoint';

const healthSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    database: z.enum(['ok', 'unreachable']),
  })
  .meta({ id: 'Health' });

export const getHealthEndpoint = endpoint({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  summary: 'Liveness and database reachability',
  tags: ['service'],
  public: true,
  responses: {
    200: { description: 'The service and its database are up', schema: healthSchema },
    503: { description: 'The database cannot be reached', schema: healthSchema },
  },
});

export const getOpenApiDocumentEndpoint = endpoint({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  summary: 'This OpenAPI 3 document',
  tags: ['service'],
  public: true,
  responses: { 200: { description: 'The OpenAPI document of both services' } },
});

/** Answers every route no function claims (not part of the published API). */
export const unknownRouteEndpoint = endpoint({
  operationId: 'unknownRoute',
  method: 'GET',
  path: '/{proxy+}',
  summary: 'Unknown route',
  tags: [],
  public: true,
  responses: {},
});

/** The governance console's page and its assets (not part of the published API; docs/console.md). */
export const getConsoleEndpoint = endpoint({
  operationId: 'getConsole',
  method: 'GET',
  path: '/console/{proxy+}',
  summary: 'The governance console',
  tags: [],
  public: true,
  params: z.object({ proxy: z.string().optional() }),
  responses: {},
});
