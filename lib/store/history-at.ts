import { sql, SqliteAdapter, type Kysely } from 'kysely';
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

/** A record in a file of the set at a moment: its body as stored, and what a licence attestation checks. */
export interface RecordAt {
  pickId: string;
  /** The canonical JSON, as the UTF-8 bytes the store holds where the engine hands them over undecoded. */
  body: string | Uint8Array;
  /** Kept beside the body: an attestation reads no body. */
  sport: string | null;
  league: string | null;
  eventMs: number | null;
}

/** A version in force at a moment, its body as text ('' when none was asked for: a count). */
export interface VersionAt extends RecordAt {
  body: string;
  digest: string;
  firstMs: number;
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

/**
 * How bodies are read: as text; as bytes where the engine hands them over without decoding them (SQLite: a
 * TEXT cast to a BLOB is the stored UTF-8 as it is; PostgreSQL's driver gives text either way); or not at
 * all, the digest of a body that matched standing for it (a count).
 */
type BodyAs = 'text' | 'bytes' | 'none';

function bodyColumn(db: Db, as: BodyAs) {
  if (as === 'none') return sql<string | Uint8Array | null>`b.digest`.as('body');
  if (as === 'bytes' && db.getExecutor().adapter instanceof SqliteAdapter)
    return sql<string | Uint8Array | null>`cast(b.body as blob)`.as('body');
  return sql<string | Uint8Array | null>`b.body`.as('body');
}

/** One range of heads, each with its body when its head is the version in force at `asOfMs` and matches the filters. */
function headsWithBodies(db: Db, asOfMs: number, filters: HistoryFilters, after: string | null, limit: number, as: BodyAs) {
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
      // The head is the version in force at the moment (false: changed since, or moved by a release before 0015).
      .select(sql<boolean | number>`(h.first_seq = h.seq and h.first_ms <= ${asOfMs})`.as('in_force'))
      .select(['h.pick_id', 'b.sport', 'b.league', 'b.event_ms'])
      .select(bodyColumn(db, as))
      // A file needs no more (the fewer values, the less a large set costs to read).
      .$if(as === 'text', (qb) => qb.select(['h.digest', 'h.first_ms']))
      .orderBy('h.pick_id')
      .execute()
  );
}

type HeadRows = Awaited<ReturnType<typeof headsWithBodies>>;

type Body = string | Uint8Array;

const versionAt = (
  row: {
    pick_id: string;
    digest?: string | null;
    first_ms?: number | string | null;
    sport: string | null;
    league: string | null;
    event_ms: number | string | null;
  },
  body: Body,
): VersionAt => ({
  pickId: row.pick_id,
  digest: row.digest ?? '',
  body: body as string,
  firstMs: Number(row.first_ms ?? NaN),
  sport: row.sport,
  league: row.league,
  eventMs: row.event_ms === null ? null : Number(row.event_ms),
});

async function versionsOfRange(db: Db, asOfMs: number, filters: HistoryFilters, heads: HeadRows, as: BodyAs): Promise<VersionAt[]> {
  const inForce: (VersionAt | null)[] = [];
  const changedSince = new Map<string, number>();
  for (const head of heads) {
    if (!head.in_force) {
      changedSince.set(head.pick_id, inForce.length);
      inForce.push(null);
    } else if (head.body !== null) inForce.push(versionAt(head, as === 'none' ? '' : head.body));
    // Otherwise in force but withdrawn, or not matching the filters.
  }
  if (changedSince.size > 0)
    for (const version of await olderVersionsAt(db, asOfMs, filters, [...changedSince.keys()], as))
      inForce[changedSince.get(version.pickId)!] = version;
  // In the store's order of ids, as the ranges are.
  return changedSince.size > 0 ? inForce.filter((version) => version !== null) : (inForce as VersionAt[]);
}

/** The versions in force at `asOfMs` of records whose head is newer (or not known to be older): their bodies, filtered. */
async function olderVersionsAt(db: Db, asOfMs: number, filters: HistoryFilters, ids: string[], as: BodyAs): Promise<VersionAt[]> {
  const out: VersionAt[] = [];
  for (const chunk of chunks(ids, 500)) {
    let select = db
      .selectFrom('record_versions as v')
      .innerJoin('record_bodies as b', 'b.digest', 'v.digest')
      .select(['v.pick_id', 'v.digest', 'v.first_ms', 'b.sport', 'b.league', 'b.event_ms'])
      .select(bodyColumn(db, as))
      .where('v.pick_id', 'in', chunk)
      .where('v.first_ms', '<=', asOfMs)
      .where(noLaterVersionBy(asOfMs));
    for (const [left, op, right] of bodyConditions(filters)) select = select.where(left, op, right);
    for (const row of await select.execute()) out.push(versionAt(row, as === 'none' ? '' : row.body!));
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
export function eachVersionAt(db: Db, asOfMs: number, filters: HistoryFilters, batch = 1_000): AsyncGenerator<VersionAt[]> {
  return walk(db, asOfMs, filters, batch, 'text');
}

/** The same, each body as the UTF-8 bytes the store holds where it can hand them over undecoded (the files). */
export function eachRecordAt(db: Db, asOfMs: number, filters: HistoryFilters, batch = 1_000): AsyncGenerator<RecordAt[]> {
  return walk(db, asOfMs, filters, batch, 'bytes');
}

async function* walk(db: Db, asOfMs: number, filters: HistoryFilters, batch: number, as: BodyAs): AsyncGenerator<VersionAt[]> {
  const range = (after: string | null) => headsWithBodies(db, asOfMs, filters, after, batch, as);
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
      const rows = await versionsOfRange(db, asOfMs, filters, heads, as);
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
  for await (const batch of walk(db, asOfMs, filters, 5_000, 'none')) count += batch.length;
  return count;
}
