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

export interface EventCheckpoint {
  tokenId: string;
  fromSeq: number;
  toSeq: number;
  count: number;
  lastHash: string | null;
  jws: string;
  atMs: number;
}

/** The token's latest signed checkpoint. */
export async function lastCheckpoint(db: Db, tokenId: string): Promise<EventCheckpoint | null> {
  const row = await db
    .selectFrom('event_checkpoints')
    .selectAll()
    .where('token_id', '=', tokenId)
    .orderBy('to_seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toCheckpoint(row) : null;
}

/** The token's checkpoints ending after `after`, oldest first. */
export async function checkpointsAfter(db: Db, tokenId: string, after: number, limit: number): Promise<EventCheckpoint[]> {
  const rows = await db
    .selectFrom('event_checkpoints')
    .selectAll()
    .where('token_id', '=', tokenId)
    .where('to_seq', '>', after)
    .orderBy('to_seq')
    .limit(limit)
    .execute();
  return rows.map(toCheckpoint);
}

/** Keeps a checkpoint; false when one to that number was kept already (another instance signed it). */
export async function keepCheckpoint(db: Db, checkpoint: EventCheckpoint): Promise<boolean> {
  const result = await db
    .insertInto('event_checkpoints')
    .values({
      token_id: checkpoint.tokenId,
      to_seq: checkpoint.toSeq,
      from_seq: checkpoint.fromSeq,
      count: checkpoint.count,
      last_hash: checkpoint.lastHash,
      jws: checkpoint.jws,
      at_ms: checkpoint.atMs,
    })
    .onConflict((oc) => oc.columns(['token_id', 'to_seq']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

const toCheckpoint = (row: Selectable<Database['event_checkpoints']>): EventCheckpoint => ({
  tokenId: row.token_id,
  fromSeq: Number(row.from_seq),
  toSeq: Number(row.to_seq),
  count: Number(row.count),
  lastHash: row.last_hash,
  jws: row.jws,
  atMs: Number(row.at_ms),
});

/** Checkpoints signed before the cut-off (pruning): a consumer has had them all that time. */
export async function pruneCheckpoints(db: Db, beforeMs: number): Promise<number> {
  const result = await db.deleteFrom('event_checkpoints').where('at_ms', '<', beforeMs).executeTakeFirst();
  return Number(result.numDeletedRows);
}
