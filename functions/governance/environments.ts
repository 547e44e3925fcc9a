import { listEnvironmentsEndpoint } from '#lib/governance/environments/endpoints';
import * as environments from '#lib/governance/environments/environment-service';
import { governanceHandler } from '#lib/governance/governance-handler';

export const listEnvironments = governanceHandler(listEnvironmentsEndpoint, async ({ query }, ctx) => ({
  status: 200,
  body: await environments.listEnvironments(ctx, query),
}));
