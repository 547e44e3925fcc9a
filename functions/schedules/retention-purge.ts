import type { Context } from 'aws-lambda';

import { getDatabase } from '#lib/db/shared-database';
import { purgeExpired } from '#lib/retention/retention-purge';
import { functionHandler } from '#lib/service/function-handler';
import { getSettings } from '#lib/settings/shared-settings';

/** A minute of the function's time kept for the batch in flight when it stops starting new ones. */
const MARGIN_MS = 60_000;

/** Every hour: deletes what the retention settings let go of (docs/settings.md, "Retention"). */
export const handler = functionHandler(async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) =>
  purgeExpired(await getDatabase(), await getSettings(), new Date(), context ? Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS : undefined),
);
