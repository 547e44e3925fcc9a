import { refreshIndexWhenStale } from '#lib/assistant/assistant-service';

/** Every minute: embeds what changed in the sources marked stale (policies, metrics, resource types, reports). */
export const handler = async () => refreshIndexWhenStale();
