import type { Kysely, SelectQueryBuilder, Selectable } from 'kysely';
import { chunks } from './history';
import type { ChangesTable, Database } from './schema';

/**
 * The change feed read as events (lib/events): entries in the order of their numbers, narrowed in the store to
 * a token's sports and leagues (its date window and content are judged on each entry, lib/events/shape.ts).
 */

type Db = Kysely<Database>;

export interface EventRow {
  seq: number;
  detectedAt: string;
  pickId: string;
  kinds: string[];
  display: Record<string, string>;
  before: { status: string | null; result: string | null; publishedAt: string | null } | null;
  after: { status: string | null; result: string | null; publishedAt: string | null } | null;
  digest: string | null;
  prevDigest: string | null;
}

/** Sports and leagues a reader is narrowed to (empty: every one). */
export interface EventNarrowing {
  sports: readonly string[];
  leagues: readonly string[];
}

const toRow = (row: Selectable<ChangesTable>): EventRow => ({
  seq: Number(row.seq),
  detectedAt: row.detected_at,
  pickId: row.pick_id,
  kinds: row.kinds.split(' '),
  display: JSON.parse(row.display) as Record<string, string>,
  before: row.before === null ? null : (JSON.parse(row.before) as EventRow['before']),
  after: row.after === null ? null : (JSON.parse(row.after) as EventRow['after']),
  digest: row.digest ?? null,
  prevDigest: row.prev_digest ?? null,
});

function narrowed(db: Db, narrowing: EventNarrowing): SelectQueryBuilder<Database, 'changes', Selectable<ChangesTable>> {
  let select = db.selectFrom('changes').selectAll();
  if (narrowing.sports.length > 0) select = select.where('sport', 'in', [...narrowing.sports]);
  if (narrowing.leagues.length > 0) select = select.where('league', 'in', [...narrowing.leagues]);
  return select;
}

/** Entries after `after`, oldest first, at most `limit`. */
export async function eventRowsAfter(db: Db, after: number, narrowing: EventNarrowing, limit: number): Promise<EventRow[]> {
  const rows = await narrowed(db, narrowing).where('seq', '>', after).orderBy('seq').limit(limit).execute();
  return rows.map(toRow);
}

/** Entries at or before `atOrBefore`, newest first, at most `limit` (the event before a resume point). */
export async function eventRowsBefore(db: Db, atOrBefore: number, narrowing: EventNarrowing, limit: number): Promise<EventRow[]> {
  const rows = await narrowed(db, narrowing).where('seq', '<=', atOrBefore).orderBy('seq', 'desc').limit(limit).execute();
  return rows.map(toRow);
}

/** The feed's last number given (0: none yet) and when its last poll completed (null: never). */
export async function feedMark(db: Db): Promise<{ last: number; completeMs: number | null }> {
  const row = await db
    .selectFrom('change_feed')
    .select((eb) => [
      'last_seq',
      'complete_ms',
      eb
        .selectFrom('changes')
        .select((e) => e.fn.max('seq').as('m'))
        .as('max_seq'),
    ])
    .where('name', '=', 'feed')
    .executeTakeFirst();
  return {
    last: Math.max(Number(row?.last_seq ?? 0), Number(row?.max_seq ?? 0)),
    completeMs: row?.complete_ms == null ? null : Number(row.complete_ms),
  };
}

export const lastEventSeq = async (db: Db): Promise<number> => (await feedMark(db)).last;

/** The first entry detected at or after `sinceIso` (the oldest event kept), or null when there is none. */
export async function firstEventSeqSince(db: Db, sinceIso: string): Promise<number | null> {
  const row = await db
    .selectFrom('changes')
    .select('seq')
    .where('detected_at', '>=', sinceIso)
    .orderBy('detected_at')
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.seq) : null;
}

/** The bodies of record versions by digest (those still kept). */
export async function versionBodies(db: Db, digests: Iterable<string>): Promise<Map<string, string>> {
  const bodies = new Map<string, string>();
  for (const chunk of chunks([...new Set(digests)])) {
    const rows = await db.selectFrom('record_bodies').select(['digest', 'body']).where('digest', 'in', chunk).execute();
    for (const row of rows) bodies.set(row.digest, row.body);
  }
  return bodies;
}
