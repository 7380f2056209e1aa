import 'server-only';
import type { Kysely } from 'kysely';
import { setTimeout as pause } from 'node:timers/promises';
import { registerJob } from '../jobs/registry';
import { log } from '../log';
import { headsMovedAfter, lastHistoryWrite } from '../store/history-writes';
import { readMeta, writeMeta } from '../store/meta';
import { clearIndex, dropIndexed, indexedOf, putIndexed } from '../store/record-index';
import type { Database } from '../store/schema';

/**
 * Keeps the index of the licensed set (lib/store/record-index.ts) in step with the record history, which every
 * poll of the change feed and every walk that reads records (exports, deliveries) writes: each record whose
 * newest version moved after the last history write indexed is put in the index again, or taken out when it
 * was withdrawn. The mark (the history write indexed up to, and when) says how fresh the index is. Runs every
 * few seconds on one instance at a time; a rebuild empties the index and follows the whole history again.
 */

type Db = Kysely<Database>;
const MARK = 'record-index-write';
const MARKED_AT = 'record-index-at';
const MODE = 'record-index-content-mode';
const MODE_AT = 'record-index-content-mode-at';
/** The history write a change of content mode happened after: a rebuild follows the history from there. */
const FLOOR = 'record-index-floor';
const BATCH = 500;
export const KEEP_EVERY_MS = 10_000;

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
 * How the background keeper shares the serving thread: its SQLite work is synchronous (better-sqlite3), and the
 * full-text index does most of its work at each commit, so following a whole walk's 40,000 versions at once held
 * every request behind it for seconds (the first API v1 walk after one was several times slower; bench:v1). It
 * takes small batches and, after each, leaves the thread to requests for three times as long as the batch held it.
 */
const GENTLE_BATCH = 100;
const GENTLE_SHARE = 3;
const GENTLE_MAX_PAUSE_MS = 250;

/**
 * Brings the index up to the history's last write; what it put and took out. `gentle`: the background job's way,
 * sharing the thread with requests (a command or a test takes the thread whole).
 */
export async function keepIndex(db: Db, signal?: AbortSignal, now = Date.now, gentle = false): Promise<{ put: number; dropped: number }> {
  const { write: since } = await indexMark(db);
  const last = await lastHistoryWrite(db);
  const done = { put: 0, dropped: 0 };
  if (last > since) {
    let after: string | null = null;
    const batch = gentle ? GENTLE_BATCH : BATCH;
    for (;;) {
      if (signal?.aborted) return done;
      const started = performance.now();
      const heads = await headsMovedAfter(db, since, after, batch);
      const live = heads.filter((h) => h.body !== null && h.digest !== null);
      await putIndexed(
        db,
        live.map((h) => indexedOf(h.pickId, h.digest!, h.body!)),
      );
      const gone = heads.filter((h) => h.body === null || h.digest === null).map((h) => h.pickId);
      await dropIndexed(db, gone);
      done.put += live.length;
      done.dropped += gone.length;
      if (heads.length < batch) break;
      after = heads.at(-1)!.pickId;
      if (gentle) {
        const held = performance.now() - started;
        await pause(Math.min(GENTLE_MAX_PAUSE_MS, Math.max(1, GENTLE_SHARE * held)));
      }
    }
    await writeMeta(db, MARK, String(last));
  }
  await writeMeta(db, MARKED_AT, String(now()));
  return done;
}

/**
 * The licence's content mode decides which fields records carry; the history keeps bodies read under the mode of
 * their day. When the mode in force differs from the one the index was filled under, the index empties at once and
 * follows only what is read from now on (the next polls and walks), so no search or sort answers from a field the
 * mode now withholds. Returns when the index last started over for a change of mode (null: never).
 */
export async function followContentMode(db: Db, mode: string | null): Promise<number | null> {
  const [kept, at] = await Promise.all([readMeta(db, MODE), readMeta(db, MODE_AT)]);
  const now = JSON.stringify(mode);
  if (kept === now) return at ? Number(at) : null;
  await writeMeta(db, MODE, now);
  if (kept === undefined || kept === null) return at ? Number(at) : null;
  await clearIndex(db);
  const floor = String(await lastHistoryWrite(db));
  await Promise.all([writeMeta(db, MARK, floor), writeMeta(db, FLOOR, floor)]);
  const startedMs = Date.now();
  await writeMeta(db, MODE_AT, String(startedMs));
  log('records').info(
    { from: JSON.parse(kept) as unknown, to: mode },
    'the licence content mode changed: the index of the licensed set started over',
  );
  return startedMs;
}

/** Empties the index and builds it again from the record history (since the content mode last changed). */
export async function rebuildIndex(db: Db): Promise<{ put: number; dropped: number }> {
  await clearIndex(db);
  await writeMeta(db, MARK, (await readMeta(db, FLOOR)) ?? '0');
  return keepIndex(db);
}

/** The keeper's job (lib/jobs/registry.ts), one instance at a time. */
export function startIndexKeeper(db: Db): void {
  registerJob({
    name: 'record-index',
    everyMs: KEEP_EVERY_MS,
    lease: 'one instance',
    run: async (signal) => {
      const kept = await keepIndex(db, signal, Date.now, true);
      if (kept.put + kept.dropped > 0) log('records').debug(kept, 'the index of the licensed set followed the record history');
    },
  });
}
