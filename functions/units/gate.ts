// The deploy gate: Evaluate alone, so that its concurrency (reserved or provisioned) is its own (docs/deployment.md).
import { routedHandler } from '#lib/service/routed-handler';

import { evaluate } from '../governance/evaluation';

export const handler = routedHandler(evaluate);
