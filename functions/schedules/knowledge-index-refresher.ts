import { refreshIndexWhenStale } from '#lib/assistant/assistant-service';
import { governance } from '#lib/governance/composition';
import { functionHandler } from '#lib/service/function-handler';

/** Every minute: embeds what changed in the sources marked stale (policies, metrics, resource types, reports). */
export const handler = functionHandler(async () => refreshIndexWhenStale(await governance()));
