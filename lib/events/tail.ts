import { registerJob, type Job } from '../jobs/registry';
import { processSlot } from '../process-state';
import { getStore } from '../store';
import { eventRowsAfter, feedMark, versionBodies } from '../store/events';
import { hold, lastHeld, MAX_RECENT, recentHeld, startHolding } from './recent';
import { digestsOf } from './shape';

/**
 * Where the change feed stands, for the event streams open in this process: one job ('event-tail') reads the
 * feed's last number and last poll every TAIL_MS while a stream is open, and wakes the streams when it moved. So
 * an entry recorded by any instance (the one holding the feed's lease) reaches streams on every instance within
 * TAIL_MS and a read, one small query per instance, whatever the number of streams. The instance that recorded it
 * wakes its own streams at once (`feedMoved`).
 */

export const TAIL_MS = 500;

export interface FeedMark {
  last: number;
  completeMs: number | null;
}

interface Tail {
  mark: FeedMark | null;
  listeners: Set<(mark: FeedMark) => void>;
  job: Job | null;
}

const tail = () => processSlot<Tail>('eventTail').once(() => ({ mark: null, listeners: new Set(), job: null }));

function moved(mark: FeedMark): void {
  const state = tail();
  const was = state.mark;
  state.mark = mark;
  if (was && was.last === mark.last && was.completeMs === mark.completeMs) return;
  for (const listener of state.listeners) listener(mark);
}

/** Called by the poller after a poll completed: streams in this process read what it recorded at once. */
export function feedMoved(): void {
  void tail().job?.runNow();
}

/** The feed's standing as last read (null before the first read). */
export const lastMark = (): FeedMark | null => tail().mark;

/** Calls `listener` whenever the feed moves, until the returned function is called. */
export function watchFeed(listener: (mark: FeedMark) => void): () => void {
  const state = tail();
  state.listeners.add(listener);
  state.job ??= registerJob({
    name: 'event-tail',
    everyMs: TAIL_MS,
    lease: 'every instance',
    run: async () => {
      if (state.listeners.size === 0) return 'skipped';
      const { db } = await getStore();
      const mark = await feedMark(db);
      startHolding(mark.last);
      // Every entry since the last one held, read once here for every stream of this process (./recent.ts); after
      // a gap longer than memory holds, only the newest (streams behind them read the store).
      if (mark.last - lastHeld(recentHeld()!) > MAX_RECENT) startHolding(mark.last - MAX_RECENT, true);
      for (let recent = recentHeld()!; lastHeld(recent) < mark.last;) {
        const rows = await eventRowsAfter(db, lastHeld(recent), { sports: [], leagues: [] }, 1_000);
        if (rows.length === 0) break;
        hold(rows, await versionBodies(db, rows.flatMap(digestsOf)));
      }
      moved(mark);
    },
  });
  return () => void state.listeners.delete(listener);
}
