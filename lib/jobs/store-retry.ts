import { log } from '../log';
import { processSlot } from '../process-state';
import { registerJob, type Job } from './registry';

/**
 * The one queue of work kept while the store is away (docs/operations.md#store-outages): audit entries, a
 * delivery run's outcome, its alert. A write the store refuses is kept by this process, in order within its
 * lane (the audit trail is one lane; each delivery run is its own), and written when the store answers again
 * by the job 'store-retries' — after 1, 2, 5, then every 10 s — before anything newer in the same lane. A
 * write whose `giveUp` says so (an instance whose stop's grace ran out) fails with the store's error.
 */

interface Kept {
  lane: string;
  what: string;
  write: () => Promise<unknown>;
  done: (value: unknown) => void;
  failed: (error: unknown) => void;
  /** What the write carries, for a lane saved to a file at stop (the audit trail's entries). */
  payload: unknown;
  giveUp?: () => boolean;
}

interface Queue {
  items: Kept[];
  failures: number;
  nextTryAt: number;
  job: Job | null;
  flushing: Promise<void> | null;
}

const queue = () => processSlot<Queue>('storeRetry').once(() => ({ items: [], failures: 0, nextTryAt: 0, job: null, flushing: null }));

/** How long to wait before writing again what the store could not take: after 1, 2, 5, then every 10 s. */
export function storeRetryDelay(failures: number): number {
  const delays = [1_000, 2_000, 5_000, 10_000];
  return delays[Math.min(failures, delays.length - 1)]!;
}

export interface KeepOptions {
  lane: string;
  payload?: unknown;
  giveUp?: () => boolean;
}

/** Writes kept in `lane` and not yet written. */
export const keptIn = (lane: string): unknown[] =>
  queue()
    .items.filter((item) => item.lane === lane)
    .map((item) => item.payload);

/**
 * Writes now when nothing is kept before it in its lane and the store takes it: `{ written: true, value }`.
 * Otherwise the write is kept, and `later` settles when it is written (or given up).
 */
export async function storeOrKeep<T>(
  what: string,
  write: () => Promise<T>,
  options: KeepOptions,
): Promise<{ written: true; value: T } | { written: false; later: Promise<T> }> {
  if (!queue().items.some((item) => item.lane === options.lane)) {
    try {
      return { written: true, value: await write() };
    } catch (error) {
      if (options.giveUp?.()) throw error;
      log('store', { lane: options.lane }).warn(
        { problem: (error as Error).message },
        `${what}: the store is away; kept by this instance and written when it answers`,
      );
    }
  }
  return { written: false, later: keep(what, write, options) };
}

/** `write` until the store takes it, after what is kept before it in its lane. */
export async function untilStored<T>(what: string, write: () => Promise<T>, options: KeepOptions): Promise<T> {
  const now = await storeOrKeep(what, write, options);
  if (now.written) return now.value;
  const value = await now.later;
  log('store', { lane: options.lane }).info(`${what}: written now that the store answers`);
  return value;
}

function keep<T>(what: string, write: () => Promise<T>, options: KeepOptions): Promise<T> {
  const state = queue();
  const kept = new Promise<T>((done, failed) =>
    state.items.push({
      lane: options.lane,
      what,
      write,
      done: done as (v: unknown) => void,
      failed,
      payload: options.payload,
      giveUp: options.giveUp,
    }),
  );
  if (state.items.length === 1) state.nextTryAt = Date.now() + storeRetryDelay(state.failures);
  state.job ??= registerJob({
    name: 'store-retries',
    everyMs: 1_000,
    firstAfterMs: 1_000,
    lease: { own: 'writes what this instance kept while the store was away' },
    stopsAt: 'close',
    run: async () => (Date.now() >= state.nextTryAt && state.items.length > 0 ? flushKept() : 'skipped'),
    onStop: () => {
      state.job = null;
    },
  });
  return kept;
}

/**
 * Writes what is kept, lane by lane in order, up to the first the store refuses (tried again after the next
 * delay). A write that gives up fails its caller; the rest of its lane goes on.
 */
export function flushKept(): Promise<void> {
  const state = queue();
  state.flushing ??= (async () => {
    const refused = new Set<string>();
    try {
      for (const item of [...state.items]) {
        if (refused.has(item.lane)) {
          // Behind a write the store refused: kept in order, unless it gives up now.
          if (item.giveUp?.()) settle(item, new Error(`${item.what}: the store is away`));
          continue;
        }
        try {
          settle(item, null, await item.write());
        } catch (error) {
          if (item.giveUp?.()) settle(item, error);
          else refused.add(item.lane);
        }
      }
    } finally {
      state.failures = refused.size > 0 ? state.failures + 1 : 0;
      state.nextTryAt = Date.now() + storeRetryDelay(state.failures);
      state.flushing = null;
    }
  })();
  return state.flushing;
}

/** Takes a written (or given-up) write out of the queue and tells its caller. */
function settle(item: Kept, error: unknown, value?: unknown): void {
  const state = queue();
  state.items.splice(state.items.indexOf(item), 1);
  if (error) item.failed(error);
  else item.done(value);
}

/** Takes what `lane` keeps out of the queue (saved elsewhere at stop): its writes fail with `reason`. */
export function dropLane(lane: string, reason: Error): unknown[] {
  const state = queue();
  const dropped = state.items.filter((item) => item.lane === lane);
  state.items = state.items.filter((item) => item.lane !== lane);
  for (const item of dropped) item.failed(reason);
  return dropped.map((item) => item.payload);
}
