import 'server-only';
import { toAppError } from '../errors';
import { auditCsvHeader, auditCsvRows, auditJsonClosing, auditJsonOpening, auditJsonRows } from '../export/audit-file';
import { fromStore } from '../store';
import { contentTypeOf, fileHeaders } from '../export/file-headers';
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
  const entries = await fromStore(async (db) => readAudit(db, query, 500)[Symbol.asyncIterator]());
  // The first entry is read before answering: a store that is away is a 503, not a broken download.
  let first: IteratorResult<AuditEntry> | null = await fromStore(() => entries.next());
  const next = () => {
    const held = first;
    first = null;
    return held ? Promise.resolve(held) : entries.next();
  };
  const encode = (text: string) => Buffer.from(text, 'utf8');
  const sent = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Record<string, string>;
  let count = 0;
  let opened = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(output) {
        try {
          if (!opened) {
            opened = true;
            output.enqueue(encode(format === 'csv' ? auditCsvHeader() : auditJsonOpening(sent)));
            return;
          }
          const batch: AuditEntry[] = [];
          for (let item = await next(); !item.done; item = await next()) {
            batch.push(item.value);
            if (batch.length === 500) break;
          }
          if (batch.length > 0) {
            output.enqueue(encode(format === 'csv' ? auditCsvRows(batch) : auditJsonRows(batch, count === 0)));
            count += batch.length;
            if (batch.length === 500) return;
          }
          if (format === 'json') output.enqueue(encode(auditJsonClosing(count)));
          output.close();
        } catch (error) {
          console.error(`[portal] audit download failed after ${count} entries: ${(error as Error).message}`);
          output.error(toAppError(error));
        }
      },
      async cancel() {
        await entries.return?.(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return new Response(stream, {
    headers: fileHeaders(contentTypeOf(format), `audit-${stamp}.${format}`),
  });
}
