import { httpHandler } from '#lib/http/handler';
import { NotFound } from '#lib/http/problems';
import { unknownRouteEndpoint } from '#lib/service/endpoints';

export const unknownRoute = httpHandler(unknownRouteEndpoint, async ({ method, path }) => {
  throw new NotFound(`No endpoint answers ${method} ${path}`);
});
