import 'server-only';
import { auditedStream, newProgress, recordExportRefused, releaseAtEnd, type ExportContext } from '../audit/export-trail';
import { AppError, toAppError } from '../errors';
import { contentTypeOf, fileHeaders, fileStamp } from '../export/file-headers';
import { getRecentLicence } from '../picks-api/portal';
import { startProof } from '../proof/file-proof';
import { fromStore } from '../store';
import { claimWalkSlot } from '../walk-slots';
import { historyCoverage } from '../history/coverage';
import { recordHistory } from '../history/record';
import { differenceStream, momentStream } from '../history/files';
import { parseHistoryQuery, type HistoryQuery } from '../history/query';

/**
 * GET /api/history (the set at a moment, or the difference between two) and GET /api/picks/<id>/history.
 * Files are audited like every export (`export.history`), with a signed manifest; they say what the history
 * can vouch for: only what the portal saw, from when it began keeping it, within the feed's window.
 */

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function historyFileResponse(
  request: Request,
  who: { email: string; role: string },
  address: string | null,
): Promise<Response> {
  const startedAt = Date.now();
  let context: ExportContext | undefined;
  let release: (() => void) | undefined;
  try {
    const coverage = await historyCoverage();
    const query: HistoryQuery = parseHistoryQuery(new URL(request.url).searchParams, startedAt, coverage.sinceMs, false);
    const format = query.format ?? 'json';
    const { format: _format, ...filters } = query.sent;
    const stamp = fileStamp(new Date(query.mode === 'asOf' ? query.asOfMs : query.toMs));
    context = {
      actor: who.email,
      role: who.role,
      action: 'export.history',
      target:
        query.mode === 'asOf' ? `history-${stamp}.${format}` : `history-changes-${fileStamp(new Date(query.fromMs))}-${stamp}.${format}`,
      filters,
      address,
      licence: null,
    };
    const { sinceMs: _sinceMs, ...vouched } = coverage;
    // A whole-set read like an export: it takes one of the person's walk slots until the file has ended.
    release = await claimWalkSlot(who.email);
    const progress = newProgress();
    releaseAtEnd(progress, release);
    const onCount = (count: number) => (progress.records = count);
    let stream: ReadableStream<Uint8Array>;
    if (query.mode === 'asOf') {
      // Records in the file are checked against the licence in force now, as any export's are.
      const licence = await getRecentLicence();
      context.licence = licence.ok ? licence.value.summary.licenceId : null;
      const proof = (progress.proof = startProof(licence.ok ? licence.value : null, { asOf: iso(query.asOfMs), ...query.filters }));
      const meta = { asOf: iso(query.asOfMs), filters, ...vouched };
      stream = await fromStore((db) => momentStream(db, query.asOfMs, query.filters, format, meta, { proof, onCount }));
    } else {
      const meta = { from: iso(query.fromMs), to: iso(query.toMs), filters, ...vouched };
      const text = query.format ?? 'json';
      stream = await fromStore((db) => differenceStream(db, query, query.filters, text, meta, onCount));
    }
    return new Response(auditedStream(stream, context, progress, startedAt), {
      headers: {
        ...fileHeaders(contentTypeOf(format), context.target),
        'X-Export-Id': progress.exportId,
        'X-History-Since': coverage.recordedSince ?? '',
      },
    });
  } catch (error) {
    release?.();
    if (context) await recordExportRefused(context, error, startedAt);
    return toAppError(error).toResponse();
  }
}

export async function recordHistoryResponse(id: string): Promise<Response> {
  try {
    const history = await recordHistory(id);
    if (history.versions.length === 0)
      throw new AppError({
        code: 'NOT_FOUND',
        message: 'The portal has not seen a record with this id (or its history is past retention).',
      });
    return Response.json(history, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}
