import { listEnvironmentsEndpoint } from '#lib/governance/environments/endpoints';
import * as environments from '#lib/governance/environments/environment-service';
import { httpHandler } from '#lib/http/handler';

export const listEnvironments = httpHandler(listEnvironmentsEndpoint, async ({ query }) => ({ status: 200, body: await environments.listEnvironments(query) }));
