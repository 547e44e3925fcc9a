import httpRouterHandler, { type Route } from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

import { httpHandler, type HttpHandler } from '#lib/http/handler';
import { NotFound } from '#lib/http/problems';

import { unknownRouteEndpoint } from './endpoints';

type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Answers every route no endpoint claims: a 404 problem naming it (API Gateway's `$default` route, and any path a function does not route). */
export const unknownRoute = httpHandler(unknownRouteEndpoint, async ({ method, path }) => {
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
  return (event, context) => route(event, context) as Promise<APIGatewayProxyStructuredResultV2>;
}
