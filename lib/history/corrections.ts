import type { Kysely } from 'kysely';
import { batchedFileStream } from '../export/batched-file';
import type { FileFormat } from '../vocabulary/formats';
import { CSV_COLUMNS, csvRows, toCsvRow } from '../export/csv';
import { jsonClosing } from '../export/json';
import type { Pick } from '../picks-api/schemas';
import { toSafeJson } from '../safe-json';
import { storeUnavailable } from '../store';
import { pendingCorrections } from '../store/delivered';
import type { Database } from '../store/schema';
import { correctionKinds, eachChanged, type CorrectionKind } from './reconcile';
import { bodyOf } from '../vocabulary/version';

/**
 * Corrections: only the records that changed since they were delivered, each with the kind of correction and
 * its new version; withdrawn records by id alone. The same file for a run's corrections downloaded by hand
 * and for those a delivery sends by itself after a poll (then relative to what its destination holds).
 */

export interface Correction {
  id: string;
  kinds: CorrectionKind[];
  /** The record now; null when it was withdrawn. */
  record: Record<string, unknown> | null;
  /** The version sent ('' for a withdrawal): what the destination holds once the file is placed. */
  digest: string;
  /** The file whose version it corrects. */
  corrects: string;
}

/** What a delivery's destination holds that is no longer true, a batch at a time. */
export async function* pendingFor(db: Kysely<Database>, deliveryId: string, batch = 500): AsyncGenerator<Correction> {
  let after: string | null = null;
  for (;;) {
    const rows = await pendingCorrections(db, deliveryId, after, batch);
    for (const row of rows) {
      const now = row.nowBody === null ? null : bodyOf(row.nowBody);
      const kinds: CorrectionKind[] = row.heldBody === null ? ['restored'] : correctionKinds(bodyOf(row.heldBody), now);
      yield { id: row.pickId, kinds, record: now, digest: row.now ?? '', corrects: row.source };
    }
    if (rows.length < batch) return;
    after = rows.at(-1)!.pickId;
  }
}

/** A run's records that changed since it delivered them. */
export async function* changedInRun(db: Kysely<Database>, runId: string): AsyncGenerator<Correction> {
  for await (const changed of eachChanged(db, runId))
    yield { id: changed.id, kinds: changed.kinds, record: changed.now, digest: '', corrects: runId };
}

export const CORRECTION_CSV_COLUMNS = ['correction', ...CSV_COLUMNS];

const correctionRows = (batch: Correction[]) =>
  csvRows(batch.map((c) => [c.kinds.join(' '), ...toCsvRow((c.record ?? { id: c.id }) as Pick)]));

export function correctionsStream(
  items: AsyncIterator<Correction>,
  format: FileFormat,
  meta: Record<string, unknown>,
  onCount?: (count: number) => void,
): Promise<ReadableStream<Uint8Array>> {
  return batchedFileStream<Correction>(
    items,
    format === 'csv'
      ? { head: csvRows([CORRECTION_CSV_COLUMNS]), rows: correctionRows, tail: () => '' }
      : format === 'jsonl'
        ? {
            head: '',
            rows: (batch) => batch.map((c) => `${toSafeJson({ id: c.id, correction: c.kinds, record: c.record })}\n`).join(''),
            tail: () => '',
          }
        : {
            head: `{"corrections":${toSafeJson(meta)},\n"data":[`,
            rows: (batch, first) =>
              batch
                .map((c, i) => `${first && i === 0 ? '\n' : ',\n'}${toSafeJson({ id: c.id, correction: c.kinds, record: c.record })}`)
                .join(''),
            tail: (count) => jsonClosing(count),
          },
    { batch: 500, fault: storeUnavailable, onCount },
  );
}
