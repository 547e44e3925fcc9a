import { readIndex, refreshIndex } from '../../lib/assistant/assistant-service';
import { readIndexEndpoint, refreshIndexEndpoint } from '../../lib/assistant/endpoints';
import { httpHandler } from '../../lib/http/handler';

export const refresh = httpHandler(refreshIndexEndpoint, async ({ signal }) => ({ status: 200, body: await refreshIndex(signal) }));
export const read = httpHandler(readIndexEndpoint, async () => ({ status: 200, body: await readIndex() }));
