import 'server-only';
import type { PortalSession } from '../auth/principal';
import { AppError } from '../errors';
import { auditCsvHeader, auditCsvRows, auditJsonClosing, auditJsonOpening, auditJsonRows } from '../export/audit-file';
import { fromStore, storeUnavailable } from '../store';
import { batchedFileStream } from '../export/batched-file';
import { contentTypeOf, fileHeaders, fileStamp } from '../export/file-headers';
import { findAuditEntry, readAudit, type AuditEntry } from '../store/audit';
import { findDeliveredFile } from '../store/delivered';
import { listCheckpoints } from '../store/checkpoints';
import { checkpointLine } from '../audit/checkpoints';
import { canonicalBytes, signBytes } from '../proof/signer';
import { MANIFEST_TYPE, toManifest } from '../audit/manifest';
import { auditedStream, newProgress, type ExportContext } from '../audit/export-trail';
import { parseAuditQuery } from '../audit/query';

/**
 * GET /api/audit?format=csv|json&from&to&actor&action&outcome: the trail, filtered, streamed in batches
 * with backpressure (never built in memory). A failure mid-way breaks the download (no closing line),
 * so a cut file never looks complete.
 */
export async function auditResponse(request: Request, who: { email: string; role: string }): Promise<Response> {
  const startedAt = Date.now();
  const url = new URL(request.url);
  const query = parseAuditQuery(url.searchParams);
  const format = query.format ?? 'json';
  const sent = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Record<string, string>;
  const filters = Object.fromEntries(Object.entries(sent).filter(([key]) => key !== 'format'));
  const progress = newProgress();
  const entries = await fromStore(async (db) => readAudit(db, query, 500)[Symbol.asyncIterator]());
  const stream = await batchedFileStream<AuditEntry>(
    entries,
    format === 'csv'
      ? { head: auditCsvHeader(), rows: auditCsvRows, tail: () => '' }
      : { head: auditJsonOpening(sent), rows: auditJsonRows, tail: auditJsonClosing },
    {
      batch: 500,
      fault: storeUnavailable,
      onCount: (count) => (progress.records = count),
      onError: (cause, count) => console.error(`[portal] audit download failed after ${count} entries: ${(cause as Error).message}`),
    },
  );
  const target = `audit-${fileStamp(new Date(startedAt))}.${format}`;
  // Recorded like any export (export.audit): its sha256 and count in the trail, its manifest signed on request.
  const context: ExportContext = { actor: who.email, role: who.role, action: 'export.audit', target, filters };
  return new Response(auditedStream(stream, context, progress, startedAt), {
    headers: { ...fileHeaders(contentTypeOf(format), target), 'X-Export-Id': progress.exportId },
  });
}

/**
 * GET /api/exports/<id>/manifest and …/manifest.jws: an export's manifest (lib/audit/manifest.ts) as canonical
 * JSON, and the compact JWS whose payload is exactly those bytes. Editors see their own, admins any.
 */
export async function manifestResponse(id: string, session: PortalSession, form: 'json' | 'jws'): Promise<Response> {
  // An export's X-Export-Id (exp_…) leads to its audit entry once that is written.
  const seq = /^exp_[0-9a-f]{20}$/.test(id) ? ((await fromStore((db) => findDeliveredFile(db, id)))?.auditSeq ?? null) : Number(id);
  if (seq === null || !/^[1-9]\d{0,15}$/.test(String(seq))) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such export.' });
  const entry = await fromStore((db) => findAuditEntry(db, seq));
  const mine = entry && entry.action.startsWith('export.') && (entry.actor === session.user.email || session.user.role === 'admin');
  if (!entry || !mine) throw new AppError({ code: 'NOT_FOUND', message: 'There is no such export of yours.' });
  const json = canonicalBytes(toManifest(entry));
  const name = entry.target ?? `export-${entry.seq}`;
  const headers = (type: string, file: string) => ({
    'Content-Type': type,
    'Cache-Control': 'private, no-store',
    'Content-Disposition': `attachment; filename="${file}"`,
  });
  if (form === 'json') return new Response(new Uint8Array(json), { headers: headers('application/json', `${name}.manifest.json`) });
  const jws = await signBytes(json, MANIFEST_TYPE);
  return new Response(jws, { headers: headers('application/jose', `${name}.manifest.jws`) });
}

/**
 * GET /api/audit/checkpoints: every checkpoint as JSON lines, the form AUDIT_CHECKPOINT_FILE has and
 * `npm run audit -- verify --checkpoints` reads, to keep where the database's writers cannot reach.
 */
export async function checkpointsResponse(): Promise<Response> {
  const checkpoints = await fromStore((db) => listCheckpoints(db));
  return new Response(checkpoints.map(checkpointLine).join(''), {
    headers: {
      'Content-Type': 'application/x-ndjson',
      'Cache-Control': 'private, no-store',
      'Content-Disposition': `attachment; filename="audit-checkpoints-${fileStamp(new Date())}.jsonl"`,
    },
  });
}
