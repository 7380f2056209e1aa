import 'server-only';
import { getStore } from '../store';
import { insertTokenRequests, type TokenRequest } from '../store/token-logs';
import { processSlot } from '../process-state';

/**
 * Each API token's requests (API v1, the event stream, the MCP server) for its page: kept in memory as they are
 * answered and written with the token's use (./usage.ts flushes both every 2 s), a few hundred rows a statement, so
 * a request pays one push onto a list. While the store is away they wait, up to MAX_WAITING; beyond, the oldest
 * are dropped and counted, and the log says how many.
 */

const MAX_WAITING = 20_000;

interface Waiting {
  entries: TokenRequest[];
  dropped: number;
}

const waiting = () => processSlot<Waiting>('tokenRequestLog').once(() => ({ entries: [], dropped: 0 }));

export function logRequest(request: TokenRequest): void {
  const state = waiting();
  if (state.entries.length >= MAX_WAITING) {
    state.entries.shift();
    state.dropped += 1;
  }
  state.entries.push(request);
}

/** Writes what waits; on failure it waits for the next flush (nothing thrown). */
export async function flushRequestLog(): Promise<void> {
  const state = waiting();
  if (state.entries.length === 0) return;
  const entries = state.entries;
  state.entries = [];
  try {
    const { db } = await getStore();
    // All or none: a failure part of the way would write the first rows twice.
    await db.transaction().execute((trx) => insertTokenRequests(trx, entries));
    if (state.dropped > 0) {
      console.error(`[tokens] ${state.dropped} request log entries were dropped while the store was away (at most ${MAX_WAITING} wait)`);
      state.dropped = 0;
    }
  } catch {
    state.entries = [...entries, ...state.entries].slice(-MAX_WAITING);
  }
}
