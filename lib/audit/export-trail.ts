import { createHash, randomBytes } from 'node:crypto';
import { getStore } from '../store';
import type { AuditEntry } from '../store/audit';
import { linkExport } from '../store/delivered';
import { toAppError } from '../errors';
import { walkSummary, type WalkReport } from '../picks-api/settle';
import { finishProof, type ProofInProgress } from '../proof/file-proof';
import { recordAudit, type AuditAction } from './record';

/**
 * An export as the audit trail sees it: the bytes delivered, their sha256, the records and upstream
 * requestIds, and how it ended. `complete` only once the reader has taken the last byte and asked for
 * more; a reader who goes away is `cancelled`; an error (the upstream's, mid-way) is `failed` with its code.
 */

export interface ExportContext {
  actor: string;
  role: string | null;
  action: Extract<AuditAction, `export.${string}`>;
  /** The file's name. */
  target: string;
  filters: Record<string, string>;
  address?: string | null;
  /** The licence reference from /me when the export started. */
  licence?: string | null;
}

export interface ExportProgress {
  records: number;
  requestIds: Set<string>;
  /** What the walk saw while the upstream moved. */
  walk?: WalkReport;
  /** The file's proof, made as it is written. */
  proof?: ProofInProgress;
  /** The export's id from its first byte (its X-Export-Id): its audit entry's seq is known only at its end. */
  exportId: string;
  /** Told how the export ended, with its audit entry (null when the entry waits for the store). */
  onEnd?: (outcome: 'complete' | 'failed' | 'cancelled', entry: AuditEntry | null) => void;
}

export function newProgress(): ExportProgress {
  return { records: 0, requestIds: new Set(), exportId: `exp_${randomBytes(10).toString('hex')}` };
}

/** Records an export that failed before its first byte (the upstream refused its first page). */
export function recordExportRefused(context: ExportContext, error: unknown, startedAt: number) {
  const failure = toAppError(error);
  return recordAudit({
    ...context,
    outcome: failure.code === 'ABORTED' ? 'cancelled' : 'failed',
    errorCode: failure.code === 'ABORTED' ? null : failure.code,
    records: 0,
    bytes: 0,
    durationMs: Date.now() - startedAt,
    requestIds: failure.requestId ? [failure.requestId] : [],
  });
}

/** The export's stream, passed through unchanged, with its end recorded in the audit trail. */
/** Lets a walk slot go when the file has ended, however it ended (after the export's own end, if any). */
export function releaseAtEnd(progress: ExportProgress, release: () => void): void {
  const before = progress.onEnd;
  progress.onEnd = (outcome, entry) => {
    release();
    before?.(outcome, entry);
  };
}

export function auditedStream(
  source: ReadableStream<Uint8Array>,
  context: ExportContext,
  progress: ExportProgress,
  startedAt: number,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const digest = createHash('sha256');
  let bytes = 0;
  let ended = false;
  const end = (outcome: 'complete' | 'failed' | 'cancelled', errorCode: string | null = null) => {
    if (ended) return Promise.resolve();
    ended = true;
    return recordAudit({
      ...context,
      outcome,
      errorCode,
      records: progress.records,
      bytes,
      sha256: digest.digest('hex'), // of the bytes delivered, however it ended
      durationMs: Date.now() - startedAt,
      requestIds: [...progress.requestIds],
      walk: progress.walk ? walkSummary(progress.walk) : null,
      proof: progress.proof ? finishProof(progress.proof) : null,
    }).then(async (entry) => {
      progress.onEnd?.(outcome, entry);
      // Its X-Export-Id leads to this entry (GET /api/exports/<id>/…) once the entry is written.
      if (entry)
        await getStore()
          .then((store) => linkExport(store.db, progress.exportId, entry.seq, context.actor, startedAt))
          .catch(() => undefined);
    });
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            await end('complete');
            controller.close();
            return;
          }
          digest.update(value);
          bytes += value.byteLength;
          controller.enqueue(value);
        } catch (error) {
          const failure = toAppError(error);
          await end(failure.code === 'ABORTED' ? 'cancelled' : 'failed', failure.code === 'ABORTED' ? null : failure.code);
          controller.error(error);
        }
      },
      async cancel(reason) {
        await end('cancelled');
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
