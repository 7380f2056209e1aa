import 'server-only';
import type { Kysely } from 'kysely';
import { registerJob } from '../jobs/registry';
import { log } from '../log';
import { lastHistoryWrite } from '../store/history-writes';
import { readMeta, writeMeta } from '../store/meta';
import { clearIndex } from '../store/record-index';
import type { Database } from '../store/schema';
import { keepIndex, MARK } from './keep-index';

export { indexMark, keepIndex, type IndexMark, type IndexTurns } from './keep-index';

/**
 * Keeps the index of the licensed set in step with the record history (./keep-index.ts) every few seconds on one
 * instance at a time, empties it when the licence's content mode changes, and rebuilds it on demand.
 */

type Db = Kysely<Database>;
const MODE = 'record-index-content-mode';
const MODE_AT = 'record-index-content-mode-at';
/** The history write a change of content mode happened after: a rebuild follows the history from there. */
const FLOOR = 'record-index-floor';
export const KEEP_EVERY_MS = 10_000;

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

/**
 * The keeper's job (lib/jobs/registry.ts), one instance at a time. `keep`: how it keeps the index — given by the
 * process's start: on the history's worker thread (lib/history/capture.ts keepIndexOnWorker), which this layer is under.
 */
export function startIndexKeeper(db: Db, keep: (db: Db, signal: AbortSignal) => Promise<{ put: number; dropped: number }>): void {
  registerJob({
    name: 'record-index',
    everyMs: KEEP_EVERY_MS,
    lease: 'one instance',
    run: async (signal) => {
      const kept = await keep(db, signal);
      if (kept.put + kept.dropped > 0) log('records').debug(kept, 'the index of the licensed set followed the record history');
    },
  });
}
