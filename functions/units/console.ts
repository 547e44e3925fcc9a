// The governance console's page and assets (docs/console.md): its own function, packaged with the built console.
import { routedHandler } from '#lib/service/routed-handler';

import { getConsole } from '../service/console';

export const handler = routedHandler(getConsole);
