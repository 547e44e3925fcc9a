import { getDatabase } from '#lib/db/shared-database';
import { httpHandler } from '#lib/http/handler';
import { databaseReachable } from '#lib/service/database-health';
import { getHealthEndpoint } from '#lib/service/endpoints';
import { healthDetail } from '#lib/service/health-detail';
import { getSettings } from '#lib/settings/shared-settings';

/** Cheap unless asked for its detail (an admin's `?detail=true`: the queue, the outbox, the audit chain's linking, the last cron run). */
export const getHealth = httpHandler(getHealthEndpoint, async ({ query }) => {
  if (!(await databaseReachable(getDatabase))) return { status: 503, body: { status: 'unavailable', database: 'unreachable' } };
  if (query.detail !== 'true') return { status: 200, body: { status: 'ok', database: 'ok' } };
  return { status: 200, body: { status: 'ok', database: 'ok', detail: await healthDetail(await getDatabase(), (await getSettings()).auditChain.linkWithin) } };
});
