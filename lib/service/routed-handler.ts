import httpRouterHandler, { type Route } from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

import { type HttpHandler, httpHandler, type LambdaHttpHandler } from '#lib/http/handler';
import { NotFound } from '#lib/http/problems';

import { unknownRouteEndpoint } from './endpoints';

/** Answers every route no endpoint claims: a 404 problem naming it (API Gateway's `$default` route, and any path a function does not route). */
const unknownRoute = httpHandler(unknownRouteEndpoint, async ({ method, path }) => {
  throw new NotFound(`No endpoint answers ${method} ${path}`);
});

/**
 * The handler of a deployed function that serves several endpoints (docs/deployment.md, "Functions"):
 * each request goes, by its method and path, to the endpoint's own handler (@middy/http-router), which
 * keeps its whole chain (authentication, validation, audit...). A request no endpoint of the function
 * answers gets the unknown route's 404. API Gateway routes each endpoint's path to its function, with
 * the path parameters already decoded: the router keeps those.
 */
export function routedHandler(...handlers: readonly HttpHandler[]): LambdaHttpHandler {
  const seen = new Set<string>();
  const routes: Route<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>[] = handlers.map((handler) => {
    const { method, path, operationId } = handler.endpoint;
    if (seen.has(`${method} ${path}`)) throw new Error(`${operationId}: ${method} ${path} is routed twice`);
    seen.add(`${method} ${path}`);
    return { method, path, handler };
  });
  // Last: the router tries the paths with parameters in this order, after every static one.
  routes.push({ method: 'ANY', path: unknownRouteEndpoint.path, handler: unknownRoute });
  const route = httpRouterHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(routes);
  return (event, context) => route(routedAsMatched(event), context) as Promise<APIGatewayProxyStructuredResultV2>;
}

/**
 * The event with the path API Gateway matched: its route's path with the path parameters in it. Behind a
 * custom domain's API mapping (`https://api.example.com/governance/...`), the request's own path starts
 * with the mapping's key, which no route has. The handler still sees the request's path (`rawPath`).
 */
function routedAsMatched(event: APIGatewayProxyEventV2): APIGatewayProxyEventV2 {
  const [method, template] = (event.routeKey ?? '').split(' ');
  if (!template?.startsWith('/') || !event.requestContext?.http) return event;
  const parameters = event.pathParameters ?? {};
  const path = template.replace(/\{(\w+)(\+?)\}/g, (_, name: string, greedy: string) => {
    const value = parameters[name] ?? '';
    return greedy ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
  });
  return { ...event, requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method, path } } };
}
