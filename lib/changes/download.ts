import 'server-only';
import { auditedStream, newProgress, recordExportRefused, type ExportContext } from '../audit/export-trail';
import { AppError, toAppError } from '../errors';
import { changesCsvHeader, changesCsvRows, changesJsonClosing, changesJsonOpening, changesJsonRows } from '../export/changes-file';
import { licenceOrNull } from '../picks-api/portal';
import { fromStore } from '../store';
import { readFeed } from '../store/change-feed';
import { readChanges, type StoredChange } from '../store/changes';
import { parseChangeQuery } from './query';

const BATCH = 500;

/**
 * GET /api/changes?since=&until=&kind=&sport=&league=&format=json|csv: the feed's entries, oldest first,
 * streamed in batches from the store with backpressure, and audited like every export (`export.changes`).
 * The first batch is read before answering: a store that is away is a 503, not a broken file; a failure
 * later breaks the download (no closing line), so a cut file never looks complete.
 */
export async function changesResponse(request: Request, who: { email: string; role: string }, address: string | null): Promise<Response> {
  const startedAt = Date.now();
  let context: ExportContext | undefined;
  try {
    const url = new URL(request.url);
    const query = parseChangeQuery(url.searchParams, 'download');
    const format = query.format ?? 'json';
    const sent = Object.fromEntries([...url.searchParams].filter(([key, value]) => key !== 'format' && value.trim() !== ''));
    const stamp = new Date(startedAt)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
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
    const entries = await fromStore(async (db) => readChanges(db, query, BATCH)[Symbol.asyncIterator]());
    let first: IteratorResult<StoredChange> | null = await fromStore(() => entries.next());
    const next = () => {
      const held = first;
      first = null;
      return held
        ? Promise.resolve(held)
        : entries.next().catch((cause: unknown) => Promise.reject(new AppError({ code: 'STORE_UNAVAILABLE', cause })));
    };
    const progress = newProgress();
    const encode = (text: string) => Buffer.from(text, 'utf8');
    let opened = false;
    const source = new ReadableStream<Uint8Array>(
      {
        async pull(output) {
          if (!opened) {
            opened = true;
            const meta = { filters: sent, lastCompletePollAt: feed.completeMs === null ? null : new Date(feed.completeMs).toISOString() };
            output.enqueue(encode(format === 'csv' ? changesCsvHeader() : changesJsonOpening(meta)));
            return;
          }
          const batch: StoredChange[] = [];
          for (let item = await next(); !item.done; item = await next()) {
            batch.push(item.value);
            if (batch.length === BATCH) break;
          }
          if (batch.length > 0) {
            output.enqueue(encode(format === 'csv' ? changesCsvRows(batch) : changesJsonRows(batch, progress.records === 0)));
            progress.records += batch.length;
            if (batch.length === BATCH) return;
          }
          if (format === 'json') output.enqueue(encode(changesJsonClosing(progress.records)));
          output.close();
        },
        async cancel() {
          await entries.return?.(undefined);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(auditedStream(source, context, progress, startedAt), {
      headers: {
        'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="${context.target}"`,
        'Cache-Control': 'private, no-store, no-transform',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  } catch (error) {
    if (context) await recordExportRefused(context, error, startedAt);
    return toAppError(error).toResponse();
  }
}
