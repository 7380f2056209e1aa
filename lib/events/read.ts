import type { Kysely } from 'kysely';
import { eventRowsAfter, eventRowsBefore, firstEventSeqSince, lastEventSeq, versionBodies, type EventRow } from '../store/events';
import type { Database } from '../store/schema';
import type { TokenScope } from '../tokens/scope';
import { processSlot } from '../process-state';
import { withheldFields } from '../tokens/scope';
import { builtEvent, heldAfter, recentHeld } from './recent';
import { digestsOf, visibleTo, type PickEvent } from './shape';

/**
 * A token's stream of events read from the store: where a consumer may resume, the events after a point (in
 * the token's view: inside its scope), and the hash of the event before a point (each event names the one
 * before it, so a consumer can show none is missing).
 */

type Db = Kysely<Database>;

const BATCH = 500;
const DAY_MS = 86_400_000;

export interface ResumePoint {
  /** Read after this number. */
  after: number;
  /** The consumer asked for a point before the oldest event kept: the first number the stream can give. */
  gap: { asked: number; first: number } | null;
  /** The feed's last number. */
  last: number;
}

export class AheadOfFeed extends Error {
  constructor(
    readonly asked: number,
    readonly last: number,
  ) {
    super(`${asked} is after the last event of this portal (${last}): it is not an id this portal gave`);
  }
}

/**
 * Where to read from: after `asked` when it is kept; after the oldest event kept, with a gap, when it is older;
 * after the last event (live only) when the consumer names no point and `fromOldest` is false.
 */
export async function resumePoint(
  db: Db,
  asked: number | null,
  retentionDays: number,
  fromOldest: boolean,
  now = Date.now(),
): Promise<ResumePoint> {
  const last = await lastEventSeq(db);
  if (asked !== null && asked > last) throw new AheadOfFeed(asked, last);
  if (asked === null && !fromOldest) return { after: last, gap: null, last };
  const first = (await firstEventSeqSince(db, new Date(now - retentionDays * DAY_MS).toISOString())) ?? last + 1;
  if (asked === null) return { after: first - 1, gap: null, last };
  if (asked < first - 1) return { after: first - 1, gap: { asked, first }, last };
  return { after: asked, gap: null, last };
}

const narrowingOf = (scope: TokenScope) => ({ sports: scope.sports, leagues: scope.leagues });

/** The hash of the token's last event at or before `point` (null: there is none kept). */
export async function hashAtOrBefore(db: Db, scope: TokenScope, point: number): Promise<string | null> {
  let cursor = point;
  for (;;) {
    const rows = await eventRowsBefore(db, cursor, narrowingOf(scope), BATCH);
    const visible = rows.find((row) => visibleTo(row, scope));
    if (visible) return (await build([visible], scope, await versionBodies(db, digestsOf(visible)), null)).events[0]!.hash;
    if (rows.length < BATCH) return null;
    cursor = rows.at(-1)!.seq - 1;
  }
}

export interface EventsRead {
  events: PickEvent[];
  /** Each event as JSON (its `data`). */
  json: string[];
  /** The last number looked at: read after it next (entries outside the scope are passed over once). */
  scanned: number;
}

/**
 * Up to `limit` of the token's events after `after`, each linked to the one before (`prev` for the first). With
 * `heldUpTo` (the feed's last number as the caller knows it), from this process's memory of the newest entries when
 * it holds all of them up to there (./recent.ts).
 */
export function readEventsAfter(
  db: Db,
  scope: TokenScope,
  after: number,
  limit: number,
  prev: string | null,
  options: { heldUpTo?: number } = {},
): Promise<EventsRead> {
  const held = options.heldUpTo === undefined ? null : heldAfter(after, options.heldUpTo);
  if (!held) return readFromStore(db, scope, after, limit, prev);
  // Streams of one view at one point (a burst fanning out) read it once, while it is being built too: keyed by
  // what memory holds now.
  const key = `${JSON.stringify(scope)}|${after}|${limit}|${prev}|${held.at(-1)?.seq ?? after}`;
  const reads = readsHeld();
  let read = reads.get(key);
  if (!read) {
    read = readFromMemory(held, scope, after, limit, prev);
    if (reads.size >= MAX_READS_HELD) reads.delete(reads.keys().next().value!);
    reads.set(key, read);
    read.catch(() => reads.delete(key));
  }
  return read;
}

async function readFromMemory(held: EventRow[], scope: TokenScope, after: number, limit: number, prev: string | null): Promise<EventsRead> {
  const rows: EventRow[] = [];
  let scanned = after;
  // visibleTo judges sports and leagues too: what the store narrows to in SQL for a read from it.
  for (const row of held) {
    scanned = row.seq;
    if (visibleTo(row, scope)) rows.push(row);
    if (rows.length === limit) break;
  }
  return { ...(await build(rows, scope, recentHeld()!.bodies, prev)), scanned };
}

async function readFromStore(db: Db, scope: TokenScope, after: number, limit: number, prev: string | null): Promise<EventsRead> {
  const rows: EventRow[] = [];
  let scanned = after;
  for (let full = false; !full;) {
    const batch = await eventRowsAfter(db, scanned, narrowingOf(scope), BATCH);
    for (const row of batch) {
      scanned = row.seq;
      if (visibleTo(row, scope)) rows.push(row);
      if ((full = rows.length === limit)) break;
    }
    if (batch.length < BATCH) break;
  }
  return { ...(await build(rows, scope, await versionBodies(db, rows.flatMap(digestsOf)), prev)), scanned };
}

/** The events of the rows, linked; building gives way to other work every SLICE events (a burst is built in slices). */
async function build(rows: readonly EventRow[], scope: TokenScope, bodies: ReadonlyMap<string, string>, prev: string | null) {
  const withheld = withheldFields(scope).join(',');
  const events: PickEvent[] = [];
  const json: string[] = [];
  let before = prev;
  for (const [i, row] of rows.entries()) {
    if (i > 0 && i % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const built = builtEvent(row, scope, bodies, withheld);
    events.push({ ...built.body, prev: before, hash: built.hash });
    json.push(`${built.open},"prev":${JSON.stringify(before)},"hash":"${built.hash}"}`);
    before = built.hash;
  }
  return { events, json };
}

const SLICE = 50;
const MAX_READS_HELD = 64;
const readsHeld = () => processSlot<Map<string, Promise<EventsRead>>>('eventsReadsHeld').once(() => new Map());
