import { z } from 'zod';

import { endpoint } from '#lib/http/endpoint';
import { listOf, paginationQuery } from '#lib/http/pagination';

const environmentRepresentation = z
  .object({
    name: z.string(),
    source: z.enum(['platform', 'settings']),
    refreshedAt: z.string(),
    details: z.record(z.string(), z.unknown()).meta({ description: 'what the platform said about the environment' }),
  })
  .meta({ id: 'Environment' });

export const listEnvironmentsEndpoint = endpoint({
  operationId: 'listEnvironments',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/v1/computational-governance/environments',
  summary: 'The environments pulled from the platform at start (or listed in the settings)',
  tags: ['environments'],
  query: paginationQuery,
  responses: { 200: { description: 'A page of environments', schema: listOf(environmentRepresentation, 'EnvironmentList') } },
});
