import 'server-only';
import type { Kysely } from 'kysely';
import { batchedFileStream, fileOfBatches } from '../export/batched-file';
import { csvHeader, csvLines, csvRows } from '../export/csv';
import { jsonClosing } from '../export/json';
import type { Pick } from '../picks-api/schemas';
import { notePage, type ProofInProgress } from '../proof/file-proof';
import { toSafeJson } from '../safe-json';
import { storeUnavailable } from '../store';
import { eachRecordAt, type HistoryFilters, type RecordAt } from '../store/history-at';
import type { Database } from '../store/schema';
import { eachDifference, type Difference } from './moments';
import { bodyOf } from '../vocabulary/version';
import type { FileFormat, RecordFormat } from '../vocabulary/formats';
import { ParquetOnWorker } from '../export/parquet-thread';

/**
 * History as files, streamed from the store a batch at a time like every other file the portal writes
 * (lib/export/batched-file.ts): the set at a moment — the records as exports write them, CSV, JSON or JSON Lines — and
 * the difference between two moments, one change per row.
 */

const BATCH = 1_000;
const closing = (count: number) => jsonClosing(count);

const attested = (v: RecordAt) => ({
  id: v.pickId,
  sport: v.sport,
  league: v.league,
  eventDate: v.eventMs === null ? undefined : new Date(v.eventMs).toISOString(),
});

async function* versions(db: Kysely<Database>, asOfMs: number, filters: HistoryFilters, proof: ProofInProgress | null) {
  for await (const batch of eachRecordAt(db, asOfMs, filters, BATCH)) {
    // The licence attestation reads what the store keeps beside each body: no body is parsed for it.
    if (proof) notePage(proof, batch.map(attested), 'utf8');
    yield batch;
  }
}

const textOf = (body: string | Uint8Array) =>
  typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

/** The records as the portal knew them at `asOfMs`; `meta` heads a JSON file (what the history can vouch for). */
export function momentStream(
  db: Kysely<Database>,
  asOfMs: number,
  filters: HistoryFilters,
  format: RecordFormat,
  meta: Record<string, unknown>,
  options: { proof: ProofInProgress | null; onCount?: (count: number) => void },
): Promise<ReadableStream<Uint8Array>> {
  const parquet = format === 'parquet' ? new ParquetOnWorker({ 'picks.history': meta }) : null;
  return fileOfBatches<RecordAt>(
    versions(db, asOfMs, filters, options.proof)[Symbol.asyncIterator](),
    parquet
      ? {
          head: '',
          // The stored bodies are JSON already (canonical: no raw LF): handed to the writer's thread as JSON Lines.
          rows: async (batch) => [await parquet.addLines(Buffer.from(batch.map((v) => `${textOf(v.body)}\n`).join(''), 'utf8'))],
          tail: async (count) => [await parquet.finish({ 'picks.count': count })],
          abandon: () => parquet.abandon(),
        }
      : format === 'csv'
        ? { head: csvHeader(), rows: (batch) => csvLines(batch.map((v) => bodyOf(textOf(v.body)) as Pick)), tail: () => '' }
        : format === 'jsonl'
          ? { head: '', rows: (batch) => batch.flatMap((v) => [v.body, '\n']), tail: () => '' }
          : {
              head: `{"history":${toSafeJson(meta)},\n"data":[`,
              // The stored bodies are canonical JSON already: written as they are, bytes as bytes.
              rows: (batch, first) => batch.flatMap((v, i) => [first && i === 0 ? '\n' : ',\n', v.body]),
              tail: closing,
            },
    { fault: storeUnavailable, onCount: options.onCount },
  );
}

export const DIFFERENCE_CSV_COLUMNS = ['id', 'change', 'field', 'before', 'after', 'sport', 'league', 'eventDate', 'homeTeam', 'awayTeam'];

function differenceRows(batch: Difference[]): string {
  const rows: unknown[][] = [];
  for (const d of batch) {
    const shown = d.after ?? d.before ?? {};
    const context = ['sport', 'league', 'eventDate', 'homeTeam', 'awayTeam'].map((key) => shown[key]);
    if (d.change !== 'changed') rows.push([d.id, d.change, null, null, null, ...context]);
    for (const field of d.fields) rows.push([d.id, d.change, field.field, field.before, field.after, ...context]);
  }
  return csvRows(rows);
}

/** The difference between two moments: records added, withdrawn and changed (with each field's before and after). */
export function differenceStream(
  db: Kysely<Database>,
  range: { fromMs: number; toMs: number },
  filters: HistoryFilters,
  format: FileFormat,
  meta: Record<string, unknown>,
  onCount?: (count: number) => void,
): Promise<ReadableStream<Uint8Array>> {
  return batchedFileStream<Difference>(
    eachDifference(db, range, filters)[Symbol.asyncIterator](),
    format === 'csv'
      ? { head: csvRows([DIFFERENCE_CSV_COLUMNS]), rows: differenceRows, tail: () => '' }
      : format === 'jsonl'
        ? { head: '', rows: (batch) => batch.map((d) => `${toSafeJson(d)}\n`).join(''), tail: () => '' }
        : {
            head: `{"history":${toSafeJson(meta)},\n"data":[`,
            rows: (batch, first) => batch.map((d, i) => `${first && i === 0 ? '\n' : ',\n'}${toSafeJson(d)}`).join(''),
            tail: closing,
          },
    { batch: 500, fault: storeUnavailable, onCount },
  );
}
