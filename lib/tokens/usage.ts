import 'server-only';
import { getStore } from '../store';
import { addUsage, type UsageDelta } from '../store/tokens';
import { processSlot } from '../process-state';
import { utcDay } from '../time';
import { flushRequestLog, logRequest } from './request-log';

/**
 * Each token's use (requests, records, bytes, refusals, last use and address), counted in memory per day and
 * added to the store every few seconds by each instance: one write per token and flush, not one per request.
 * What was counted when the store was away is kept for the next flush.
 */

const FLUSH_MS = 2_000;

export interface UsageCounter {
  pending: Map<string, UsageDelta & { tokenId: string; day: string }>;
  timer: NodeJS.Timeout | null;
}

const counter = () => processSlot<UsageCounter>('tokenUsage').once(() => ({ pending: new Map(), timer: null }));

export interface UsageEvent {
  status: number;
  records: number;
  bytes: number;
  address: string | null;
  /** A request to API v1 or the MCP server: also written to the token's request log (./request-log.ts). */
  request?: { method: string; path: string; durationMs: number; requestId: string; prefix: string };
}

export function countUse(tokenId: string, event: UsageEvent, now = Date.now()): void {
  const state = counter();
  const day = utcDay(now);
  const key = `${tokenId}\0${day}`;
  const entry = state.pending.get(key) ?? {
    tokenId,
    day,
    requests: 0,
    records: 0,
    bytes: 0,
    clientErrors: 0,
    throttled: 0,
    lastMs: now,
    lastAddress: event.address,
  };
  entry.requests += 1;
  entry.records += event.records;
  entry.bytes += event.bytes;
  if (event.status === 429) entry.throttled += 1;
  else if (event.status >= 400 && event.status < 500) entry.clientErrors += 1;
  entry.lastMs = now;
  entry.lastAddress = event.address;
  state.pending.set(key, entry);
  if (event.request) logRequest({ tokenId, atMs: now, status: event.status, records: event.records, ...event.request });
  state.timer ??= setTimeout(() => void flushUsage(), FLUSH_MS).unref();
}

/** Adds what was counted to the store (also called at a clean stop and by tests). */
export async function flushUsage(): Promise<void> {
  const state = counter();
  state.timer = null;
  const logged = flushRequestLog();
  const entries = [...state.pending.values()];
  state.pending.clear();
  if (entries.length === 0) return logged;
  try {
    const { db } = await getStore();
    for (const entry of entries) await addUsage(db, entry.tokenId, entry.day, entry);
  } catch {
    // Kept for the next flush: use is never dropped because the store was away for a moment.
    for (const entry of entries) {
      const key = `${entry.tokenId}\0${entry.day}`;
      const later = state.pending.get(key);
      if (!later) state.pending.set(key, entry);
      else
        state.pending.set(key, {
          ...later,
          requests: later.requests + entry.requests,
          records: later.records + entry.records,
          bytes: later.bytes + entry.bytes,
          clientErrors: later.clientErrors + entry.clientErrors,
          throttled: later.throttled + entry.throttled,
        });
    }
    state.timer ??= setTimeout(() => void flushUsage(), FLUSH_MS * 5).unref();
  }
  await logged;
}
