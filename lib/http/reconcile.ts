import 'server-only';
import { FILE_FORMATS, type FileFormat } from '../vocabulary/formats';
import type { PortalSession } from '../auth/principal';
import { AppError, toAppError } from '../errors';
import { fromStore } from '../store';
import { findAuditEntry } from '../store/audit';
import { findDeliveredFile, type DeliveredFile } from '../store/delivered';
import { auditedStream, newProgress, releaseAtEnd, type ExportContext } from '../audit/export-trail';
import { contentTypeOf, fileHeaders, fileStamp } from '../export/file-headers';
import { changedInRun, correctionsStream } from '../history/corrections';
import { reconcilable, reconcile } from '../history/reconcile';
import { claimWalkSlot } from '../walk-slots';
import type { z } from 'zod';
import type { exportReconciliationSchema, runReconciliationSchema } from '../history/answers';

/** GET /api/exports/<id>/reconcile and a delivery run's: a delivered file against what the portal knows now. */

const EXPORT_ID = /^(exp_[0-9a-f]{20}|[1-9]\d{0,15})$/;

/** An export of this person's (an admin's: anyone's), by its X-Export-Id or its audit seq; 404 otherwise. */
export async function findExport(id: string, session: PortalSession): Promise<DeliveredFile> {
  const file = EXPORT_ID.test(id) ? await fromStore((db) => findDeliveredFile(db, id)) : null;
  if (!file || file.kind !== 'export' || (file.actor !== session.user.email && session.user.role !== 'admin'))
    throw new AppError({ code: 'NOT_FOUND', message: 'There is no such export of yours.' });
  return file;
}

export type ExportReconciliation = z.infer<typeof exportReconciliationSchema>;

export async function exportReconciliation(file: DeliveredFile): Promise<ExportReconciliation> {
  const [entry, result] = await fromStore((db) =>
    Promise.all([file.auditSeq === null ? undefined : findAuditEntry(db, file.auditSeq), reconcile(db, file)]),
  );
  return {
    export: {
      id: file.id,
      seq: file.auditSeq,
      file: entry?.target ?? null,
      filters: entry?.filters ?? null,
      exportedAt: new Date(file.atMs).toISOString(),
      exportedBy: file.actor,
    },
    ...result,
  };
}

export async function exportReconcileResponse(id: string, session: PortalSession): Promise<Response> {
  try {
    const body = await exportReconciliation(await findExport(id, session));
    return Response.json(body, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

/** A run of this delivery whose records were kept; 404 otherwise. */
async function findRun(deliveryId: string, runId: string): Promise<DeliveredFile> {
  const file = /^run_[0-9a-f]{20}$/.test(runId) ? await fromStore((db) => findDeliveredFile(db, runId)) : null;
  if (!file || file.kind !== 'run' || file.deliveryId !== deliveryId)
    throw new AppError({ code: 'NOT_FOUND', message: 'This delivery has no such run whose records were kept.' });
  return file;
}

export type RunReconciliation = z.infer<typeof runReconciliationSchema>;

/** A delivery run's records against what the portal knows now; 404 for a run not of this delivery. */
export async function runReconciliation(deliveryId: string, runId: string): Promise<RunReconciliation> {
  const file = await findRun(deliveryId, runId);
  const result = await fromStore((db) => reconcile(db, file));
  return { run: { id: file.id, deliveryId, deliveredAt: new Date(file.atMs).toISOString() }, ...result };
}

export async function runReconcileResponse(deliveryId: string, runId: string): Promise<Response> {
  try {
    return Response.json(await runReconciliation(deliveryId, runId), { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    return toAppError(error).toResponse();
  }
}

/** GET /api/deliveries/<id>/runs/<runId>/corrections?format=: the run's records changed since, as a file (audited as an export). */
export async function runCorrectionsResponse(
  request: Request,
  who: { email: string; role: string },
  deliveryId: string,
  runId: string,
): Promise<Response> {
  const startedAt = Date.now();
  let release: (() => void) | undefined;
  try {
    const asked = new URL(request.url).searchParams.get('format') ?? 'csv';
    if (!(FILE_FORMATS as readonly string[]).includes(asked))
      throw new AppError({ code: 'INVALID_FORMAT', message: 'format must be csv, json or jsonl.', details: { format: asked } });
    const format = asked as FileFormat;
    reconcilable(await findRun(deliveryId, runId));
    const context: ExportContext = {
      actor: who.email,
      role: who.role,
      action: 'export.corrections',
      target: `corrections-${runId}-${fileStamp(new Date(startedAt))}.${format}`,
      filters: { delivery: deliveryId, run: runId },
    };
    release = await claimWalkSlot(who.email); // taken like an export's, until the file has ended
    const progress = newProgress();
    releaseAtEnd(progress, release);
    const meta = { delivery: deliveryId, corrects: runId, asOf: new Date(startedAt).toISOString() };
    const stream = await fromStore((db) =>
      correctionsStream(changedInRun(db, runId)[Symbol.asyncIterator](), format, meta, (n) => (progress.records = n)),
    );
    return new Response(auditedStream(stream, context, progress, startedAt), {
      headers: { ...fileHeaders(contentTypeOf(format), context.target), 'X-Export-Id': progress.exportId },
    });
  } catch (error) {
    release?.();
    return toAppError(error).toResponse();
  }
}
