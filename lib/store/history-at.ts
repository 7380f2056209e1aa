import { sql, type Kysely } from 'kysely';
import { chunks } from './history';
import { noLaterVersionBy } from './history-read';
import type { Database } from './schema';

/** Record history's set at a moment (./history.ts writes the history; ./history-read.ts reads a record's and prunes). */

type Db = Kysely<Database>;

/** The point-in-time filters: the picks filters, compared as the store holds the fields. */
export interface HistoryFilters {
  sport?: string;
  league?: string;
  status?: string;
  result?: string;
  /** Event date, ISO: inclusive. */
  from?: string;
  /** Event date, ISO: exclusive. */
  to?: string;
}

export interface VersionAt {
  pickId: string;
  digest: string;
  /** The canonical JSON; '' when the caller asked for none (a count). */
  body: string;
  firstMs: number;
  /** What a licence attestation checks, as the store holds it beside the body (no body read for them). */
  sport: string | null;
  league: string | null;
  eventMs: number | null;
}

/** The point-in-time filters as conditions on a body (`record_bodies as b`): [column or expression, operator, value]. */
function bodyConditions(filters: HistoryFilters) {
  const conditions: [ReturnType<typeof sql<string>> | 'b.status' | 'b.result' | 'b.event_ms', '=' | '>=' | '<', string | number][] = [];
  if (filters.sport) conditions.push([sql<string>`lower(b.sport)`, '=', filters.sport.toLowerCase()]);
  if (filters.league) conditions.push([sql<string>`lower(b.league)`, '=', filters.league.toLowerCase()]);
  if (filters.status) conditions.push(['b.status', '=', filters.status]);
  if (filters.result) conditions.push(['b.result', '=', filters.result]);
  if (filters.from) conditions.push(['b.event_ms', '>=', Date.parse(filters.from)]);
  if (filters.to) conditions.push(['b.event_ms', '<', Date.parse(filters.to)]);
  return conditions;
}

/** One range of heads, each with its body when its head is the version in force at `asOfMs` and matches the filters. */
function headsWithBodies(db: Db, asOfMs: number, filters: HistoryFilters, after: string | null, limit: number, bodies: boolean) {
  let range = db.selectFrom('record_heads').select(['pick_id', 'seq', 'digest', 'first_ms', 'first_seq']).orderBy('pick_id').limit(limit);
  if (after !== null) range = range.where('pick_id', '>', after);
  return (
    db
      .selectFrom(range.as('h'))
      .leftJoin('record_bodies as b', (join) => {
        let on = join.onRef('b.digest', '=', 'h.digest').onRef('h.first_seq', '=', 'h.seq').on('h.first_ms', '<=', asOfMs);
        for (const [left, op, right] of bodyConditions(filters)) on = on.on(left, op, right);
        return on;
      })
      .select(['h.pick_id', 'h.seq', 'h.digest', 'h.first_ms', 'h.first_seq', 'b.sport', 'b.league', 'b.event_ms'])
      // The digest of a body that matched stands for it when no body is wanted.
      .select(bodies ? 'b.body' : 'b.digest as body')
      .orderBy('h.pick_id')
      .execute()
  );
}

type HeadRows = Awaited<ReturnType<typeof headsWithBodies>>;

const versionAt = (
  row: {
    pick_id: string;
    digest: string | null;
    first_ms: number | string | null;
    sport: string | null;
    league: string | null;
    event_ms: number | string | null;
  },
  body: string,
): VersionAt => ({
  pickId: row.pick_id,
  digest: row.digest!,
  body,
  firstMs: Number(row.first_ms),
  sport: row.sport,
  league: row.league,
  eventMs: row.event_ms === null ? null : Number(row.event_ms),
});

async function versionsOfRange(db: Db, asOfMs: number, filters: HistoryFilters, heads: HeadRows, bodies: boolean): Promise<VersionAt[]> {
  const inForce = new Map<string, VersionAt>();
  const changedSince: string[] = [];
  for (const head of heads) {
    const known = head.first_ms !== null && Number(head.first_seq) === Number(head.seq);
    if (!known || Number(head.first_ms) > asOfMs) changedSince.push(head.pick_id);
    else if (head.body !== null) inForce.set(head.pick_id, versionAt(head, bodies ? head.body : ''));
    // Otherwise in force but withdrawn, or not matching the filters.
  }
  if (changedSince.length > 0)
    for (const version of await olderVersionsAt(db, asOfMs, filters, changedSince, bodies)) inForce.set(version.pickId, version);
  const rows: VersionAt[] = [];
  // In the store's order of ids, as the ranges are.
  for (const head of heads) {
    const version = inForce.get(head.pick_id);
    if (version) rows.push(version);
  }
  return rows;
}

/** The versions in force at `asOfMs` of records whose head is newer (or not known to be older): their bodies, filtered. */
async function olderVersionsAt(db: Db, asOfMs: number, filters: HistoryFilters, ids: string[], bodies: boolean): Promise<VersionAt[]> {
  const out: VersionAt[] = [];
  for (const chunk of chunks(ids, 500)) {
    let select = db
      .selectFrom('record_versions as v')
      .innerJoin('record_bodies as b', 'b.digest', 'v.digest')
      .select(['v.pick_id', 'v.digest', 'v.first_ms', 'b.sport', 'b.league', 'b.event_ms'])
      .select(bodies ? 'b.body' : 'b.digest as body')
      .where('v.pick_id', 'in', chunk)
      .where('v.first_ms', '<=', asOfMs)
      .where(noLaterVersionBy(asOfMs));
    for (const [left, op, right] of bodyConditions(filters)) select = select.where(left, op, right);
    for (const row of await select.execute()) out.push(versionAt(row, bodies ? row.body : ''));
  }
  return out;
}

/**
 * The records as the portal knew them at `asOfMs`, a batch at a time, never the whole set in memory: each
 * record's latest version first seen at or before it, without those seen withdrawn by then. Read a range of
 * `batch` heads at a time, in id order: one query gives each head with its body when the head was already in
 * force at the moment (most records, for a recent moment); only the records changed since (or whose head a
 * release before 0015 moved) are looked for among their older versions. Every query covers only its range,
 * so a whole set costs time in proportion to its size on both engines. From the second range on, the next
 * one is asked for before a batch is handed on, so the database reads it while the caller writes this one
 * (a page that needs one range reads no other).
 */
export async function* eachVersionAt(
  db: Db,
  asOfMs: number,
  filters: HistoryFilters,
  batch = 1_000,
  bodies = true,
): AsyncGenerator<VersionAt[]> {
  const range = (after: string | null) => headsWithBodies(db, asOfMs, filters, after, batch, bodies);
  let heads = await range(null);
  let ahead: Promise<HeadRows> | null = null;
  let walking = false;
  try {
    for (;;) {
      const after = heads.length === batch ? heads.at(-1)!.pick_id : null;
      if (walking && after !== null) {
        ahead = range(after);
        // Its failure is met where it is awaited, not reported as unhandled while this batch is written.
        ahead.catch(() => undefined);
      }
      const rows = await versionsOfRange(db, asOfMs, filters, heads, bodies);
      if (rows.length > 0) yield rows;
      if (after === null) return;
      heads = await (ahead ?? range(after));
      ahead = null;
      walking = true;
    }
  } finally {
    // A walk given up half-way leaves no query unanswered behind it.
    await ahead?.catch(() => undefined);
  }
}

/** The first `limit` records of the set at a moment, in id order (the page). */
export async function firstVersionsAt(db: Db, asOfMs: number, filters: HistoryFilters, limit: number): Promise<VersionAt[]> {
  const out: VersionAt[] = [];
  for await (const batch of eachVersionAt(db, asOfMs, filters)) {
    out.push(...batch.slice(0, limit - out.length));
    if (out.length >= limit) break;
  }
  return out;
}

/** How many records the set at `asOfMs` holds (the page's count; files count as they stream). */
export async function countVersionsAt(db: Db, asOfMs: number, filters: HistoryFilters): Promise<number> {
  let count = 0;
  for await (const batch of eachVersionAt(db, asOfMs, filters, 5_000, false)) count += batch.length;
  return count;
}
