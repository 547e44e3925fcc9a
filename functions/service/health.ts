import { getDatabase } from '#lib/db/shared-database';
import { httpHandler } from '#lib/http/handler';
import { databaseReachable } from '#lib/service/database-health';
import { getHealthEndpoint } from '#lib/service/endpoints';

export const getHealth = httpHandler(getHealthEndpoint, async () =>
  (await databaseReachable(getDatabase))
    ? { status: 200, body: { status: 'ok', database: 'ok' } }
    : { status: 503, body: { status: 'unavailable', database: 'unreachable' } },
);
