import 'server-only';
import { auditedStream, newProgress, recordExportRefused, releaseAtEnd, type ExportContext } from '../audit/export-trail';
import { toAppError } from '../errors';
import { contentTypeOf, fileHeaders, fileStamp } from '../export/file-headers';
import { licenceOrNull } from '../picks-api/portal';
import { fromStore } from '../store';
import { readFeed } from '../store/change-feed';
import { claimWalkSlot } from '../walk-slots';
import { parseChangeQuery } from '../changes/query';
import { pollNow } from '../changes/feed';
import { changesStream } from '../changes/stream';
import type { z } from 'zod';
import type { pollAnswerSchema } from '../changes/answers';

/**
 * GET /api/changes?since=&until=&kind=&sport=&league=&format=json|csv: the feed's entries, oldest first,
 * streamed and audited like every export (`export.changes`), in one of the person's walk slots like every export.
 */
export async function changesResponse(request: Request, who: { email: string; role: string }, address: string | null): Promise<Response> {
  const startedAt = Date.now();
  let context: ExportContext | undefined;
  let release: (() => void) | undefined;
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
    // A whole file like an export's: it takes one of the person's walk slots until the file has ended.
    release = await claimWalkSlot(who.email);
    const feed = await fromStore(readFeed);
    const progress = newProgress();
    releaseAtEnd(progress, release);
    const meta = { filters: sent, lastCompletePollAt: feed.completeMs === null ? null : new Date(feed.completeMs).toISOString() };
    const source = await fromStore((db) => changesStream(db, query, format, meta, (count) => (progress.records = count)));
    return new Response(auditedStream(source, context, progress, startedAt), {
      headers: { ...fileHeaders(contentTypeOf(format), context.target), 'X-Export-Id': progress.exportId },
    });
  } catch (error) {
    release?.();
    if (context) await recordExportRefused(context, error, startedAt);
    return toAppError(error).toResponse();
  }
}

/** POST /api/changes/poll: "poll now" for scripts; the feed polls at once (or at the lease holder's next check). */
export async function pollResponse(): Promise<Response> {
  const { poll, sinceMs } = await pollNow();
  // `since`: the poll that answers started at or after it; GET /api/changes' lastCompletePollAt reaching it means it ended.
  const asked: z.infer<typeof pollAnswerSchema> = { poll, since: new Date(sinceMs).toISOString() };
  return Response.json(asked, { status: 202, headers: { 'Cache-Control': 'no-store' } });
}
