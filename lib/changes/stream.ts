import 'server-only';
import type { Kysely } from 'kysely';
import {
  changesCsvHeader,
  changesCsvRows,
  changesJsonClosing,
  changesJsonLines,
  changesJsonOpening,
  changesJsonRows,
} from './changes-file';
import type { FileFormat } from '../vocabulary/formats';
import { storeUnavailable } from '../store';
import { batchedFileStream } from '../export/batched-file';
import { readChanges, type ChangeQuery, type StoredChange } from '../store/changes';
import type { Database } from '../store/schema';

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
  format: FileFormat,
  meta: Record<string, unknown>,
  onRecords: (count: number) => void = () => undefined,
): Promise<ReadableStream<Uint8Array>> {
  return batchedFileStream<StoredChange>(
    readChanges(db, query, BATCH)[Symbol.asyncIterator](),
    format === 'csv'
      ? { head: changesCsvHeader(), rows: changesCsvRows, tail: () => '' }
      : format === 'jsonl'
        ? { head: '', rows: changesJsonLines, tail: () => '' }
        : { head: changesJsonOpening(meta), rows: changesJsonRows, tail: changesJsonClosing },
    { batch: BATCH, fault: storeUnavailable, onCount: onRecords },
  );
}
