import { auditLines } from '#lib/audit/audit-lines';
import { listAuditRecordsEndpoint } from '#lib/audit/endpoints';
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
