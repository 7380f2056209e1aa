import type { Kysely } from 'kysely';
import { headsMovedAfter, lastHistoryWrite } from '../store/history-writes';
import { readMeta, writeMeta } from '../store/meta';
import { dropIndexed, indexedOf, putIndexed } from '../store/record-index';
import type { Database } from '../store/schema';

/**
 * The index of the licensed set (lib/store/record-index.ts) brought up to the record history, which every poll of
 * the change feed and every walk that reads records (exports, deliveries, API v1) writes: each record whose newest
 * version moved after the last history write indexed is put in the index again, or taken out when it was
 * withdrawn. The mark (the history write indexed up to, and when) says how fresh the index is. Nothing here needs
 * the server's own modules: the history's worker thread runs it too (./index-keeper.ts starts it).
 */

type Db = Kysely<Database>;
export const MARK = 'record-index-write';
const MARKED_AT = 'record-index-at';
const BATCH = 200; // one batch holds the write lock (and the serving thread's writes) while it commits

export interface IndexMark {
  /** The history write the index follows up to (0: it follows none yet). */
  write: number;
  /** When it last caught up with the history; null: never. */
  atMs: number | null;
}

export async function indexMark(db: Db): Promise<IndexMark> {
  const [write, at] = await Promise.all([readMeta(db, MARK), readMeta(db, MARKED_AT)]);
  return { write: Number(write ?? 0), atMs: at ? Number(at) : null };
}

/**
 * Each batch's writes wait for their turn (`before`) and say when they are committed (`after`): on the history's
 * worker thread (lib/history/capture.ts keepIndexOnWorker), the serving thread holds its own writes meanwhile.
 */
export interface IndexTurns {
  before(): Promise<void>;
  after(): void;
}

/**
 * Brings the index up to the history's last write; what it put and took out. The background job runs it on the
 * history's worker thread: its SQLite work is synchronous and the full-text index does most of it at each commit,
 * so on the serving thread it held every request behind it (a whole walk's 40,000 versions: seconds; bench:v1).
 */
export async function keepIndex(
  db: Db,
  signal?: AbortSignal,
  now = Date.now,
  turns?: IndexTurns,
): Promise<{ put: number; dropped: number }> {
  const { write: since } = await indexMark(db);
  const last = await lastHistoryWrite(db);
  const done = { put: 0, dropped: 0 };
  const inTurn = async (write: () => Promise<unknown>) => {
    await turns?.before();
    try {
      await write();
    } finally {
      turns?.after();
    }
  };
  if (last > since) {
    let after: string | null = null;
    for (;;) {
      if (signal?.aborted) return done;
      const heads = await headsMovedAfter(db, since, after, BATCH);
      const live = heads.filter((h) => h.body !== null && h.digest !== null);
      const rows = live.map((h) => indexedOf(h.pickId, h.digest!, h.body!));
      const gone = heads.filter((h) => h.body === null || h.digest === null).map((h) => h.pickId);
      await inTurn(async () => {
        await putIndexed(db, rows);
        await dropIndexed(db, gone);
      });
      done.put += live.length;
      done.dropped += gone.length;
      if (heads.length < BATCH) break;
      after = heads.at(-1)!.pickId;
    }
  }
  await inTurn(async () => {
    if (last > since) await writeMeta(db, MARK, String(last));
    await writeMeta(db, MARKED_AT, String(now()));
  });
  return done;
}
