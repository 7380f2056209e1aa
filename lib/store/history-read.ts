import { sql, type Kysely } from 'kysely';
import type { Observer } from '../vocabulary/version';
import { chunks } from './history';
import { takeLock } from './locks';
import type { Database } from './schema';

/** Reading record history (./history.ts writes it): one record's versions, differences' states, retention (the set at a moment: ./history-at.ts). */

type Db = Kysely<Database>;

/** A version `v` (record_versions as v) in force at a moment: no later version of its record was seen by then. */
export const noLaterVersionBy = (atMs: number) =>
  sql<boolean>`not exists (select 1 from record_versions w where w.pick_id = v.pick_id and w.seq > v.seq and w.first_ms <= ${atMs})`;

export interface StoredVersion {
  seq: number;
  /** null: the record was seen withdrawn. */
  digest: string | null;
  body: string | null;
  firstMs: number;
  firstBy: Observer;
  lastMs: number;
  lastBy: Observer;
}

/** A record's versions, oldest first; the newest carries its latest sighting. Empty when the portal never saw it. */
export async function readRecordHistory(db: Db, pickId: string): Promise<StoredVersion[]> {
  const [rows, head] = await Promise.all([
    db
      .selectFrom('record_versions as v')
      .leftJoin('record_bodies as b', 'b.digest', 'v.digest')
      .select(['v.seq', 'v.digest', 'b.body', 'v.first_ms', 'v.first_by', 'v.last_ms', 'v.last_by'])
      .where('v.pick_id', '=', pickId)
      .orderBy('v.seq')
      .execute(),
    db.selectFrom('record_heads').selectAll().where('pick_id', '=', pickId).executeTakeFirst(),
  ]);
  return rows.map((row) => {
    const newest = head && Number(head.seq) === Number(row.seq);
    return {
      seq: Number(row.seq),
      digest: row.digest,
      body: row.body ?? null,
      firstMs: Number(row.first_ms),
      firstBy: row.first_by as Observer,
      lastMs: Number(newest ? head.last_ms : row.last_ms),
      lastBy: (newest ? head.last_by : row.last_by) as Observer,
    };
  });
}

/** Records with a version first seen in (fromMs, toMs], in id order, `after` the last of the batch before. */
export async function changedBetween(db: Db, fromMs: number, toMs: number, after: string | null, limit: number): Promise<string[]> {
  let select = db.selectFrom('record_versions').select('pick_id').distinct().where('first_ms', '>', fromMs).where('first_ms', '<=', toMs);
  if (after !== null) select = select.where('pick_id', '>', after);
  return (await select.orderBy('pick_id').limit(limit).execute()).map((row) => row.pick_id);
}

/** What each of `ids` was at `atMs`: its body, null when it was seen withdrawn by then; absent when not yet seen. */
export async function statesAt(db: Db, ids: readonly string[], atMs: number): Promise<Map<string, string | null>> {
  const states = new Map<string, string | null>();
  for (const chunk of chunks(ids, 500)) {
    const rows = await db
      .selectFrom('record_versions as v')
      .leftJoin('record_bodies as b', 'b.digest', 'v.digest')
      .select(['v.pick_id', 'b.body'])
      .where('v.pick_id', 'in', chunk)
      .where('v.first_ms', '<=', atMs)
      .where(noLaterVersionBy(atMs))
      .execute();
    for (const row of rows) states.set(row.pick_id, row.body ?? null);
  }
  return states;
}

const SINCE = 'history.since';

/**
 * From when the history can vouch for a moment: its first sighting, or the cut-off of the last pruning if
 * that is later (before it, versions that were replaced are gone). null: nothing recorded yet.
 */
export async function historySince(db: Db): Promise<number | null> {
  const [first, pruned] = await Promise.all([
    db
      .selectFrom('record_versions')
      .select((eb) => eb.fn.min('first_ms').as('first'))
      .executeTakeFirst(),
    db.selectFrom('meta').select('value').where('key', '=', SINCE).executeTakeFirst(),
  ]);
  if (first?.first === null || first?.first === undefined) return null;
  return Math.max(Number(first.first), pruned ? Number(pruned.value) : 0);
}

/**
 * Drops what is past retention: versions replaced before `cutoffMs`; a record's newest version only when it
 * was last seen before the cut-off and the change feed no longer watches the record; bodies nothing refers to
 * any more (neither a version nor a delivered file's list, which is pruned by the same cut-off).
 */
export async function pruneHistory(db: Db, cutoffMs: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await takeLock(trx, 'history');
    let removed = 0;
    // Replaced before the cut-off: the next version of the same record was first seen before it.
    const replaced = await trx
      .deleteFrom('record_versions as v')
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('record_versions as n')
            .select('n.seq')
            .whereRef('n.pick_id', '=', 'v.pick_id')
            .whereRef('n.seq', '>', 'v.seq')
            .where('n.first_ms', '<', cutoffMs),
        ),
      )
      .executeTakeFirst();
    removed += Number(replaced.numDeletedRows);
    // Forgotten records: newest sighting before the cut-off, and no longer watched by the feed.
    const forgotten = (
      await trx
        .selectFrom('record_heads as h')
        .select('h.pick_id')
        .where('h.last_ms', '<', cutoffMs)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('watched as w').select('w.id').whereRef('w.id', '=', 'h.pick_id'))))
        .execute()
    ).map((row) => row.pick_id);
    for (const chunk of chunks(forgotten, 500)) {
      const gone = await trx.deleteFrom('record_versions').where('pick_id', 'in', chunk).executeTakeFirst();
      removed += Number(gone.numDeletedRows);
      await trx.deleteFrom('record_heads').where('pick_id', 'in', chunk).execute();
    }
    await trx.deleteFrom('delivered_versions').where('at_ms', '<', cutoffMs).execute();
    await trx.deleteFrom('delivered_files').where('at_ms', '<', cutoffMs).execute();
    await trx.deleteFrom('delivered_state').where('at_ms', '<', cutoffMs).execute();
    await trx
      .deleteFrom('record_bodies as b')
      .where((eb) =>
        eb.and([
          eb.not(eb.exists(eb.selectFrom('record_versions as v').select('v.seq').whereRef('v.digest', '=', 'b.digest'))),
          eb.not(eb.exists(eb.selectFrom('delivered_versions as d').select('d.pick_id').whereRef('d.digest', '=', 'b.digest'))),
          eb.not(eb.exists(eb.selectFrom('delivered_state as s').select('s.pick_id').whereRef('s.digest', '=', 'b.digest'))),
        ]),
      )
      .execute();
    if (removed > 0)
      await trx
        .insertInto('meta')
        .values({ key: SINCE, value: String(cutoffMs) })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(cutoffMs) }))
        .execute();
    return removed;
  });
}
