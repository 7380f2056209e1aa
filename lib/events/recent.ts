import { processSlot } from '../process-state';
import type { EventRow } from '../store/events';
import type { TokenScope } from '../tokens/scope';
import { eventBody, hashEvent, type EventBody } from './shape';

/**
 * The feed's newest entries in this process's memory, read once by the tail (./tail.ts) for every stream here:
 * a burst of changes fans out to a thousand streams without a thousand reads of the store, and each event is
 * built and hashed once per way of reading it (the content withheld), not once per stream. Streams that are
 * behind what memory holds read the store (./read.ts).
 */

export const MAX_RECENT = 5_000;
const MAX_BUILT = 20_000;

export interface Recent {
  /** Every entry after this number, up to the last row held, is in `rows`. */
  from: number;
  rows: EventRow[];
  bodies: Map<string, string>;
}

export interface Built {
  body: EventBody;
  hash: string;
  /** The event's JSON without its closing brace, for `prev` and `hash` to be added per stream. */
  open: string;
}

interface State {
  recent: Recent | null;
  built: Map<string, Built>;
}

const state = () => processSlot<State>('eventsRecent').once(() => ({ recent: null, built: new Map() }));

export const recentHeld = (): Recent | null => state().recent;
export const lastHeld = (recent: Recent): number => recent.rows.at(-1)?.seq ?? recent.from;

/** Starts holding entries after `from` (the feed's last number when the first stream opened), or again from there. */
export function startHolding(from: number, again = false): void {
  if (again || !state().recent) state().recent = { from, rows: [], bodies: new Map() };
}

/** Adds the entries read after the last one held, with the bodies they name; the oldest beyond MAX_RECENT are let go. */
export function hold(rows: readonly EventRow[], bodies: ReadonlyMap<string, string>): void {
  const recent = state().recent;
  if (!recent) return;
  for (const row of rows) if (row.seq > lastHeld(recent)) recent.rows.push(row);
  for (const [digest, body] of bodies) recent.bodies.set(digest, body);
  if (recent.rows.length > MAX_RECENT) {
    const dropped = recent.rows.splice(0, recent.rows.length - MAX_RECENT);
    recent.from = dropped.at(-1)!.seq;
    const needed = new Set(recent.rows.flatMap((row) => [row.digest, row.prevDigest]));
    for (const digest of recent.bodies.keys()) if (!needed.has(digest)) recent.bodies.delete(digest);
  }
}

/**
 * The entries after `after` up to `upTo` (the feed's last number as the caller knows it) from memory, or null when
 * memory does not hold all of them: it began later, or it stopped short (the tail reads only while a stream is open).
 */
export function heldAfter(after: number, upTo: number): EventRow[] | null {
  const recent = state().recent;
  if (!recent || after < recent.from || lastHeld(recent) < upTo) return null;
  const rows = recent.rows;
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return rows.slice(lo);
}

/** The event of an entry as a scope reads it, built once per withheld content (bodies from memory or those given). */
export function builtEvent(row: EventRow, scope: TokenScope, bodies: ReadonlyMap<string, string>, withheldKey: string): Built {
  const memo = state().built;
  const key = `${row.seq}:${row.detectedAt}:${row.pickId}:${row.digest}:${row.prevDigest}:${withheldKey}`;
  let built = memo.get(key);
  if (!built) {
    const body = eventBody(row, bodies, scope);
    const hash = hashEvent(body);
    built = { body, hash, open: JSON.stringify(body).slice(0, -1) };
    if (memo.size >= MAX_BUILT) memo.delete(memo.keys().next().value!);
    memo.set(key, built);
  }
  return built;
}

/** Forgets everything held (tests; a store that was replaced). */
export function forgetHeld(): void {
  state().recent = null;
  state().built.clear();
}
