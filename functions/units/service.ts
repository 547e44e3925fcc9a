// The service's own public endpoints; API Gateway's `$default` route (every route no function claims) comes here too.
import { routedHandler } from '#lib/service/routed-handler';

import { getHealth } from '../service/health';
import { getOpenApiDocument } from '../service/openapi';

export const handler = routedHandler(getHealth, getOpenApiDocument);
