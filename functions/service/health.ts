import { httpHandler } from '#lib/http/handler';
import { databaseReachable } from '#lib/service/database-health';
import { healthEndpoint } from '#lib/service/endpoints';

export const getHealth = httpHandler(healthEndpoint, async () =>
  (await databaseReachable())
    ? { status: 200, body: { status: 'ok', database: 'ok' } }
    : { status: 503, body: { status: 'unavailable', database: 'unreachable' } },
);
