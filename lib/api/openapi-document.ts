import { OpenApiGeneratorV3, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

import type { ScopeRule } from '#lib/authorization/access';
import type { Endpoint } from '#lib/http/endpoint';
import { PROBLEM_CONTENT_TYPE } from '#lib/http/problem-response';
import { problemSchema } from '#lib/http/problem-schema';

import { catalogue } from './catalogue';

const problem = (description: string) => ({ description, content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } } });

const SCOPE_WORDS: Record<ScopeRule, string> = {
  anywhere: '(in any scope)',
  everywhere: '(in a binding limited to no resource type or environment)',
  resource: 'for the resource type and environment it acts on',
};

/** Who may call: the permission and where it must be held, in words and as `x-permission` / `x-permission-scope`. */
function accessOf(endpoint: Endpoint) {
  if (endpoint.public) return { description: 'Public: no credentials needed.' };
  if (endpoint.access === 'authenticated' || !endpoint.access) return { description: 'Any authenticated caller.', 'x-permission': 'authenticated' };
  const { permission, scope } = endpoint.access;
  return { description: `Permission: \`${permission}\` ${SCOPE_WORDS[scope]}.`, 'x-permission': permission, 'x-permission-scope': scope };
}

/** Answers every endpoint can give, whatever it does. */
function commonResponses(endpoint: Endpoint) {
  return {
    ...(endpoint.body || endpoint.query || endpoint.params ? { 400: problem('Invalid request: every bad field is listed in `errors`') } : {}),
    ...(endpoint.public ? {} : { 401: problem('Missing or invalid credentials') }),
    ...(typeof endpoint.access === 'object'
      ? { 403: problem(`The caller lacks the permission ${endpoint.access.permission} ${SCOPE_WORDS[endpoint.access.scope]}`) }
      : {}),
    500: problem('Unexpected error; the body carries the request id'),
  };
}

/** The OpenAPI 3 document of the given endpoints (by default, the whole catalogue). */
export function openApiDocument(endpoints: readonly Endpoint[] = catalogue) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'basic', { type: 'http', scheme: 'basic' });
  for (const endpoint of endpoints) {
    registry.registerPath({
      method: endpoint.method.toLowerCase() as 'get',
      path: endpoint.path,
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      ...accessOf(endpoint),
      tags: [...endpoint.tags],
      security: endpoint.public ? [] : [{ bearer: [] }, { basic: [] }],
      request: {
        params: endpoint.params as never,
        query: endpoint.query as never,
        body: endpoint.body ? { required: true, content: { 'application/json': { schema: endpoint.body } } } : undefined,
      },
      responses: {
        ...commonResponses(endpoint),
        ...Object.fromEntries(
          Object.entries(endpoint.responses).map(([status, response]) => [
            status,
            response.schema
              ? { description: response.description, content: { [response.mediaType ?? 'application/json']: { schema: response.schema } } }
              : Number(status) >= 400
                ? problem(response.description)
                : { description: response.description },
          ]),
        ),
      },
    });
  }
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Computational governance platform and assistant service',
      version: '1',
      description: 'Errors are RFC 9457 problem documents (application/problem+json).',
    },
  });
}
