import 'server-only';
import { auditedStream, newProgress, recordExportRefused, type ExportContext } from '../audit/export-trail';
import { toAppError } from '../errors';
import type { FilterKind } from '../picks-api/filters';
import { newWalkReport } from '../picks-api';
import { getRecentLicence } from '../picks-api/portal';
import { keepExport, type Keeping } from '../history/keep';
import { notePage, startProof } from '../proof/file-proof';
import { claimWalkSlot } from '../walk-slots';
import { fileHeaders } from '../export/file-headers';
import { exportFilename, planExport, startExport } from '../export/stream';
import { searchedPagesOf } from '../records/search-export';

/**
 * The route handlers' whole job: plan, take a walk slot, start, and answer with the stream (or the error,
 * before any byte). Every export that starts is recorded in the audit trail with how it ended; the store
 * must answer first (the walk slot is taken there), so none is sent unrecorded.
 */
export async function exportResponse(
  kind: FilterKind,
  request: Request,
  who: { email: string; role: string },
  address: string | null = null,
): Promise<Response> {
  const url = new URL(request.url);
  const startedAt = Date.now();
  let context: ExportContext | undefined;
  let keeping: Keeping | undefined;
  try {
    const plan = planExport(kind, url.searchParams, url.searchParams.get('format'), url.searchParams.get('bom'));
    // Cut (recorded cancelled) if this instance stops with the export still running at the end of its grace.
    const stopping = new AbortController();
    const release = await claimWalkSlot(who.email, undefined, undefined, () =>
      stopping.abort(new DOMException('This portal instance stopped before the export ended.', 'AbortError')),
    );
    context = {
      actor: who.email,
      role: who.role,
      action: kind === 'picks' ? 'export.picks' : 'export.results',
      target: exportFilename(plan, new Date(startedAt)),
      filters: plan.sent,
      address,
      licence: null,
    };
    // The licence in force as the walk starts: every record is checked against it (lib/proof/attest.ts).
    const licence = await getRecentLicence();
    context.licence = licence.ok ? licence.value.summary.licenceId : null;
    const progress = newProgress();
    progress.walk = newWalkReport();
    const proof = (progress.proof = startProof(licence.ok ? licence.value : null, plan.filters));
    // Which version of each record the file holds, kept for reconciliation once it has ended (lib/history/keep.ts).
    keeping = await keepExport(progress, who.email);
    const kept = keeping;
    const started = await startExport(plan, {
      // A searched or ordered set is written from the portal's index, within the licence in force.
      pages: searchedPagesOf(plan, licence),
      signal: AbortSignal.any([request.signal, stopping.signal]),
      report: progress.walk,
      about: { exportId: progress.exportId, licenceId: context.licence },
      onDone: release,
      onRecords: (records, encoding) => notePage(proof, records, encoding),
      onWritten: (page) => kept.page(page),
      onPage: (records, requestId) => {
        progress.records = records;
        if (requestId) progress.requestIds.add(requestId);
      },
    });
    context.target = started.filename;
    return new Response(auditedStream(started.stream, context, progress, startedAt), {
      headers: { ...fileHeaders(started.contentType, started.filename), 'X-Export-Id': progress.exportId },
    });
  } catch (error) {
    keeping?.finish(false);
    if (context) await recordExportRefused(context, error, startedAt);
    return toAppError(error).toResponse();
  }
}
