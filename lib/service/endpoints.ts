import { z } from 'zod';

import { endpoint } from '#lib/http/endpoint';

const ageSeconds = z.number().nullable().describe('Seconds since then; null: none');

const healthDetailSchema = z
  .object({
    queue: z.object({
      queued: z.number().int().describe('Evaluation tasks waiting for a worker'),
      running: z.number().int().describe('Evaluation tasks a worker holds'),
      oldestQueuedAgeSeconds: ageSeconds.describe('How long the oldest waiting task has waited; null: none waits'),
    }),
    outbox: z.object({
      pending: z.number().int().describe('Messages neither delivered nor given up'),
      oldestAgeSeconds: ageSeconds.describe('The age of the oldest of them; null: none'),
    }),
    auditChain: z.object({
      unlinked: z.number().int().describe('Records of calls that answered, waiting to be linked into the audit chain'),
      oldestUnlinkedAgeSeconds: ageSeconds.describe('How long the oldest of them has waited; null: none waits'),
      linkWithinSeconds: z.number().int().describe('audit-chain.link-within: the longest a record may wait'),
      lagging: z.boolean().describe('Whether a record has waited longer than linkWithinSeconds'),
    }),
    cron: z.object({
      schedules: z.number().int().describe('Cron policies scheduled'),
      lastRunAt: z.iso.datetime().nullable().describe('The last scheduled run the dispatcher started; null: none yet'),
      lastRunAgeSeconds: ageSeconds,
    }),
  })
  .meta({ id: 'HealthDetail' });

const healthSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    database: z.enum(['ok', 'unreachable']),
    detail: healthDetailSchema.optional().describe('With ?detail=true (permission operations:read), when the database is reachable'),
  })
  .meta({ id: 'Health' });

export const getHealthEndpoint = endpoint({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  summary: "Liveness and database reachability; with detail=true (an admin), the queue, the outbox, the audit chain's linking and the last cron run",
  tags: ['service'],
  public: true,
  query: z.object({ detail: z.enum(['true', 'false']).optional() }),
  accessWhen: { query: { detail: 'true' }, access: { permission: 'operations:read', scope: 'everywhere' } },
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
