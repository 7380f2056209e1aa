import 'server-only';
import type { Kysely } from 'kysely';
import { auditedStream, newProgress, recordExportRefused, type ExportContext } from '../audit/export-trail';
import { toAppError } from '../errors';
import { changesCsvHeader, changesCsvRows, changesJsonClosing, changesJsonOpening, changesJsonRows } from '../export/changes-file';
import { licenceOrNull } from '../picks-api/portal';
import { fromStore, storeUnavailable } from '../store';
import { batchedFileStream } from '../export/batched-file';
import { contentTypeOf, fileHeaders, fileStamp } from '../export/file-headers';
import { readFeed } from '../store/change-feed';
import { readChanges, type ChangeQuery, type StoredChange } from '../store/changes';
import type { Database } from '../store/schema';
import { parseChangeQuery } from './query';

const BATCH = 500;

/**
 * The feed's entries matching `query`, oldest first, as a CSV or JSON file streamed in batches from the
 * store with backpressure. The first batch is read before this returns, so a store that is away is an
 * error here, not a broken file; a failure later errors the stream (no closing line), so a cut file
 * never looks complete. Used by GET /api/changes and by `changes` deliveries.
 */
export async function changesStream(
  db: Kysely<Database>,
  query: ChangeQuery,
  format: 'csv' | 'json',
  meta: Record<string, unknown>,
  onRecords: (count: number) => void = () => undefined,
): Promise<ReadableStream<Uint8Array>> {
  return batchedFileStream<StoredChange>(
    readChanges(db, query, BATCH)[Symbol.asyncIterator](),
    format === 'csv'
      ? { head: changesCsvHeader(), rows: changesCsvRows, tail: () => '' }
      : { head: changesJsonOpening(meta), rows: changesJsonRows, tail: changesJsonClosing },
    { batch: BATCH, fault: storeUnavailable, onCount: onRecords },
  );
}

/**
 * GET /api/changes?since=&until=&kind=&sport=&league=&format=json|csv: the feed's entries, oldest first,
 * streamed and audited like every export (`export.changes`).
 */
export async function changesResponse(request: Request, who: { email: string; role: string }, address: string | null): Promise<Response> {
  const startedAt = Date.now();
  let context: ExportContext | undefined;
  try {
    const url = new URL(request.url);
    const query = parseChangeQuery(url.searchParams, 'download');
    const format = query.format ?? 'json';
    const sent = Object.fromEntries([...url.searchParams].filter(([key, value]) => key !== 'format' && value.trim() !== ''));
    const stamp = fileStamp(new Date(startedAt));
    context = {
      actor: who.email,
      role: who.role,
      action: 'export.changes',
      target: `changes-${stamp}.${format}`,
      filters: sent,
      address,
      licence: (await licenceOrNull())?.licenceId ?? null,
    };
    const feed = await fromStore(readFeed);
    const progress = newProgress();
    const meta = { filters: sent, lastCompletePollAt: feed.completeMs === null ? null : new Date(feed.completeMs).toISOString() };
    const source = await fromStore((db) => changesStream(db, query, format, meta, (count) => (progress.records = count)));
    return new Response(auditedStream(source, context, progress, startedAt), {
      headers: fileHeaders(contentTypeOf(format), context.target),
    });
  } catch (error) {
    if (context) await recordExportRefused(context, error, startedAt);
    return toAppError(error).toResponse();
  }
}
