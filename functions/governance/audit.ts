import { auditLines } from '#lib/audit/audit-lines';
import { checkpointKey, listCheckpoints, takeCheckpoint } from '#lib/audit/checkpoints';
import { createCheckpointEndpoint, listAuditRecordsEndpoint, listCheckpointsEndpoint } from '#lib/audit/endpoints';
import { ConflictError } from '#lib/errors/domain-errors';
import { serviceFrame } from '#lib/http/composition';
import { httpHandler } from '#lib/http/handler';

/** The rest of a cut answer, as a Link header (RFC 8288): the same range, after the last seq sent. */
function nextLink(query: URLSearchParams, after: number | undefined): Record<string, string> {
  if (after === undefined) return {};
  query.set('after', String(after));
  return { link: `<${listAuditRecordsEndpoint.path}?${query}>; rel="next"` };
}

export const listAuditRecords = httpHandler(listAuditRecordsEndpoint, async ({ query }) => {
  const { text, after } = await auditLines((await serviceFrame()).database, query);
  const range = new URLSearchParams();
  if (query.from) range.set('from', query.from.toISOString());
  if (query.to) range.set('to', query.to.toISOString());
  return { status: 200, text, headers: { 'content-type': 'application/x-ndjson', ...nextLink(range, after) } };
});

export const createAuditCheckpoint = httpHandler(createCheckpointEndpoint, async () => {
  const checkpoint = await takeCheckpoint(await serviceFrame(), true);
  if (!checkpoint) throw new ConflictError('The audit chain is empty: there is nothing to sign yet');
  return { status: 201, body: checkpoint };
});

export const listAuditCheckpoints = httpHandler(listCheckpointsEndpoint, async ({ query }) => {
  const frame = await serviceFrame();
  const [{ checkpoints, next }, key] = await Promise.all([listCheckpoints(frame, query.after, query.limit), checkpointKey(frame.settings)]);
  const checkpointIntervalSeconds = Math.round(frame.settings.auditChain.checkpointInterval / 1000);
  return { status: 200, body: { ...key, checkpointIntervalSeconds, data: checkpoints, meta: { next } } };
});
