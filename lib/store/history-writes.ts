import type { Kysely } from 'kysely';
import type { Database } from './schema';

/**
 * What the record history changed after one of its writes (`record_heads.written`, 0024): how a table delivery
 * follows it run after run (lib/deliveries/table-run.ts) without comparing moments, whose sightings may be
 * written later than they were seen.
 */

type Db = Kysely<Database>;

/** The history's last committed write (0: none yet). Every head it moved is readable once this is. */
export async function lastHistoryWrite(db: Db): Promise<number> {
  const row = await db.selectFrom('locks').select('version').where('name', '=', 'history').executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** A record whose head moved: its newest version's body (null: withdrawn) and the fields filters compare. */
export interface MovedHead {
  pickId: string;
  digest: string | null;
  body: string | null;
  sport: string | null;
  league: string | null;
  status: string | null;
  result: string | null;
  eventMs: number | null;
}

/** Heads moved by a write after `since`, in id order from `after`, `limit` at a time. */
export async function headsMovedAfter(db: Db, since: number, after: string | null, limit: number): Promise<MovedHead[]> {
  let select = db
    .selectFrom('record_heads as h')
    .leftJoin('record_bodies as b', 'b.digest', 'h.digest')
    .select(['h.pick_id', 'h.digest', 'b.body', 'b.sport', 'b.league', 'b.status', 'b.result', 'b.event_ms'])
    .where('h.written', '>', since)
    .orderBy('h.pick_id')
    .limit(limit);
  if (after !== null) select = select.where('h.pick_id', '>', after);
  return (await select.execute()).map((row) => ({
    pickId: row.pick_id,
    digest: row.digest,
    body: row.body ?? null,
    sport: row.sport ?? null,
    league: row.league ?? null,
    status: row.status ?? null,
    result: row.result ?? null,
    eventMs: row.event_ms === null || row.event_ms === undefined ? null : Number(row.event_ms),
  }));
}
