import { refreshIndexWhenStale } from '#lib/assistant/assistant-service';
import { governance } from '#lib/governance/composition';

/** Every minute: embeds what changed in the sources marked stale (policies, metrics, resource types, reports). */
export const handler = async () => refreshIndexWhenStale(await governance());
