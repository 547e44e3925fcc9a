import { proposeDescriptorFix as propose } from '#lib/assistant/descriptor-fix';
import { proposeDescriptorFixEndpoint } from '#lib/assistant/endpoints';
import { governanceHandler } from '#lib/governance/governance-handler';

/** Changes nothing but the dry-run reports of its checks: recorded as a read, never chained. */
export const proposeDescriptorFix = governanceHandler(
  proposeDescriptorFixEndpoint,
  async ({ body, principal, authorize, signal }, ctx) => {
    authorize({ resourceType: body.resourceType, environment: body.environment });
    return { status: 200, body: await propose(ctx, body, { subject: principal.subject, signal }) };
  },
  { changesNothing: true },
);
