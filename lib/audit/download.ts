import 'server-only';
import { auditCsvHeader, auditCsvRows, auditJsonClosing, auditJsonOpening, auditJsonRows } from '../export/audit-file';
import { fromStore, storeUnavailable } from '../store';
import { batchedFileStream } from '../export/batched-file';
import { contentTypeOf, fileHeaders, fileStamp } from '../export/file-headers';
import { readAudit, type AuditEntry } from '../store/audit';
import { parseAuditQuery } from './query';

/**
 * GET /api/audit?format=csv|json&from&to&actor&action&outcome: the trail, filtered, streamed in batches
 * with backpressure (never built in memory). A failure mid-way breaks the download (no closing line),
 * so a cut file never looks complete.
 */
export async function auditResponse(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const query = parseAuditQuery(url.searchParams);
  const format = query.format ?? 'json';
  const sent = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Record<string, string>;
  const entries = await fromStore(async (db) => readAudit(db, query, 500)[Symbol.asyncIterator]());
  const stream = await batchedFileStream<AuditEntry>(
    entries,
    format === 'csv'
      ? { head: auditCsvHeader(), rows: auditCsvRows, tail: () => '' }
      : { head: auditJsonOpening(sent), rows: auditJsonRows, tail: auditJsonClosing },
    {
      batch: 500,
      fault: storeUnavailable,
      onError: (cause, count) => console.error(`[portal] audit download failed after ${count} entries: ${(cause as Error).message}`),
    },
  );
  const stamp = fileStamp(new Date());
  return new Response(stream, {
    headers: fileHeaders(contentTypeOf(format), `audit-${stamp}.${format}`),
  });
}
