import { listEnvironmentsEndpoint } from '../../lib/governance/environments/endpoints';
import { listEnvironments } from '../../lib/governance/environments/environment-service';
import { httpHandler } from '../../lib/http/handler';

export const list = httpHandler(listEnvironmentsEndpoint, async ({ query }) => ({ status: 200, body: await listEnvironments(query) }));
