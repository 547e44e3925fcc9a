import type { Database } from '#lib/db/client';

import { linkBeforeReading } from './audit-chainer';
import { type AuditRange, AuditRepository } from './audit-repository';

/** Records read from the database at a time, and most bytes (UTF-8) of one answer: Lambda answers at most 6 MB. */
const PAGE_ROWS = 1000;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Records of the range as NDJSON, oldest first; `after` is the seq to continue after when the answer is cut. */
export interface AuditLines {
  readonly text: string;
  readonly after?: number;
}

/**
 * The records of the range, page after page of the table, until the range ends or the answer is full
 * (at least one record). A first page links what waits first; a next page (`after`) reads on.
 */
export async function auditLines(database: Database, range: AuditRange): Promise<AuditLines> {
  if (range.after === undefined) await linkBeforeReading(database);
  const repository = new AuditRepository(database);
  const lines: string[] = [];
  let bytes = 0;
  let after = range.after ?? 0;
  for (;;) {
    const page = await repository.page({ ...range, after }, PAGE_ROWS);
    for (const link of page) {
      const line = `${JSON.stringify(link)}\n`;
      bytes += Buffer.byteLength(line);
      if (lines.length > 0 && bytes > MAX_ANSWER_BYTES) return { text: lines.join(''), after };
      lines.push(line);
      after = link.seq;
    }
    if (page.length < PAGE_ROWS) return { text: lines.join('') };
  }
}
