import type { Kysely } from 'kysely';
import type { Version } from '../vocabulary/version';
import { chunks } from './history';
import type { Database } from './schema';

/** Which version of each record a file delivered (an export's id, a delivery run's id): what reconciliation compares. */

type Db = Kysely<Database>;

export async function recordDelivered(
  db: Db,
  source: string,
  versions: readonly Pick<Version, 'id' | 'digest'>[],
  at: number,
  deliveryId: string | null = null,
): Promise<void> {
  for (const chunk of chunks(versions)) {
    const listed = chunk.filter((v) => v.digest !== '');
    if (listed.length > 0)
      await db
        .insertInto('delivered_versions')
        .values(listed.map((v) => ({ source, pick_id: v.id, digest: v.digest, at_ms: at })))
        .onConflict((oc) => oc.columns(['source', 'pick_id']).doNothing())
        .execute();
    // What the delivery's destination holds now: this file's version of each record (digest '': told it was withdrawn).
    if (deliveryId !== null)
      await db
        .insertInto('delivered_state')
        .values(chunk.map((v) => ({ delivery_id: deliveryId, pick_id: v.id, digest: v.digest, source, at_ms: at })))
        .onConflict((oc) =>
          oc
            .columns(['delivery_id', 'pick_id'])
            .doUpdateSet((eb) => ({
              digest: eb.ref('excluded.digest'),
              source: eb.ref('excluded.source'),
              at_ms: eb.ref('excluded.at_ms'),
            }))
            // A run read back late never overwrites what a later run or correction already sent.
            .where((eb) => eb('delivered_state.at_ms', '<=', eb.ref('excluded.at_ms'))),
        )
        .execute();
  }
}

export interface DeliveredAgainstNow {
  pickId: string;
  delivered: string;
  /** The body delivered. */
  deliveredBody: string;
  /** The record's newest version now: null when it was seen withdrawn since. */
  now: string | null;
  nowBody: string | null;
}

/** A file's records whose newest version differs from the one delivered, a batch at a time in id order. */
export async function changedSince(db: Db, source: string, after: string | null, limit: number): Promise<DeliveredAgainstNow[]> {
  let select = db
    .selectFrom('delivered_versions as d')
    .innerJoin('record_heads as h', 'h.pick_id', 'd.pick_id')
    .innerJoin('record_bodies as was', 'was.digest', 'd.digest')
    .leftJoin('record_bodies as now', 'now.digest', 'h.digest')
    .select(['d.pick_id', 'd.digest as delivered', 'was.body as deliveredBody', 'h.digest as now', 'now.body as nowBody'])
    .where('d.source', '=', source)
    .where((eb) => eb.or([eb('h.digest', 'is', null), eb('h.digest', '!=', eb.ref('d.digest'))]));
  if (after !== null) select = select.where('d.pick_id', '>', after);
  const rows = await select.orderBy('d.pick_id').limit(limit).execute();
  return rows.map((row) => ({
    pickId: row.pick_id,
    delivered: row.delivered,
    deliveredBody: row.deliveredBody,
    now: row.now,
    nowBody: row.nowBody ?? null,
  }));
}

/** How many records a file delivered, as kept. */
export async function deliveredCount(db: Db, source: string): Promise<number> {
  const row = await db
    .selectFrom('delivered_versions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('source', '=', source)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export interface DeliveredFile {
  id: string;
  kind: 'export' | 'run';
  auditSeq: number | null;
  deliveryId: string | null;
  actor: string;
  atMs: number;
  records: number | null;
  kept: 'pending' | 'kept' | 'failed' | 'none';
  error: string | null;
}

export async function openDeliveredFile(db: Db, file: Omit<DeliveredFile, 'records' | 'kept' | 'error' | 'auditSeq'>): Promise<void> {
  await db
    .insertInto('delivered_files')
    .values({
      id: file.id,
      kind: file.kind,
      audit_seq: null,
      delivery_id: file.deliveryId,
      actor: file.actor,
      at_ms: file.atMs,
      records: null,
      kept: 'pending',
      error: null,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function updateDeliveredFile(
  db: Db,
  id: string,
  set: Partial<Pick<DeliveredFile, 'auditSeq' | 'records' | 'kept' | 'error'>>,
): Promise<void> {
  await db
    .updateTable('delivered_files')
    .set({
      ...(set.auditSeq !== undefined ? { audit_seq: set.auditSeq } : {}),
      ...(set.records !== undefined ? { records: set.records } : {}),
      ...(set.kept !== undefined ? { kept: set.kept } : {}),
      ...(set.error !== undefined ? { error: set.error } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** An export by its X-Export-Id or its audit entry's seq; a run by its id. */
export async function findDeliveredFile(db: Db, id: string): Promise<DeliveredFile | null> {
  let select = db.selectFrom('delivered_files').selectAll();
  select = /^\d+$/.test(id) ? select.where('audit_seq', '=', Number(id)) : select.where('id', '=', id);
  const row = await select.executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    kind: row.kind as DeliveredFile['kind'],
    auditSeq: row.audit_seq === null ? null : Number(row.audit_seq),
    deliveryId: row.delivery_id,
    actor: row.actor,
    atMs: Number(row.at_ms),
    records: row.records === null ? null : Number(row.records),
    kept: row.kept as DeliveredFile['kept'],
    error: row.error,
  };
}

/** Links an export's id to its audit entry: an export that kept no records (a change-feed or audit file) gets its entry here. */
export async function linkExport(db: Db, id: string, auditSeq: number, actor: string, atMs: number): Promise<void> {
  await db
    .insertInto('delivered_files')
    .values({ id, kind: 'export', audit_seq: auditSeq, delivery_id: null, actor, at_ms: atMs, records: null, kept: 'none', error: null })
    .onConflict((oc) => oc.column('id').doUpdateSet({ audit_seq: auditSeq }))
    .execute();
}

/** A record whose version at a delivery's destination is no longer the newest: what a correction sends. */
export interface Pending {
  pickId: string;
  /** What the destination holds ('' : told it was withdrawn) and the file that put it there. */
  held: string;
  heldBody: string | null;
  source: string;
  /** The newest version (null: withdrawn since). */
  now: string | null;
  nowBody: string | null;
}

/** The records a delivery's destination holds in a version that is no longer the newest, in id order. */
export async function pendingCorrections(db: Db, deliveryId: string, after: string | null, limit: number): Promise<Pending[]> {
  let select = db
    .selectFrom('delivered_state as s')
    .innerJoin('record_heads as h', 'h.pick_id', 's.pick_id')
    .leftJoin('record_bodies as held', 'held.digest', 's.digest')
    .leftJoin('record_bodies as now', 'now.digest', 'h.digest')
    .select(['s.pick_id', 's.digest as held', 'held.body as heldBody', 's.source', 'h.digest as now', 'now.body as nowBody'])
    .where('s.delivery_id', '=', deliveryId)
    .where((eb) =>
      eb.or([
        eb.and([eb('h.digest', 'is', null), eb('s.digest', '!=', '')]),
        eb.and([eb('h.digest', 'is not', null), eb('h.digest', '!=', eb.ref('s.digest'))]),
      ]),
    );
  if (after !== null) select = select.where('s.pick_id', '>', after);
  const rows = await select.orderBy('s.pick_id').limit(limit).execute();
  return rows.map((row) => ({
    pickId: row.pick_id,
    held: row.held,
    heldBody: row.heldBody ?? null,
    source: row.source,
    now: row.now,
    nowBody: row.nowBody ?? null,
  }));
}

export async function hasCorrections(db: Db, deliveryId: string): Promise<boolean> {
  return (await pendingCorrections(db, deliveryId, null, 1)).length > 0;
}

/**
 * Re-settlements: records a delivery run delivered settled (with a result) whose result changed after, as a
 * later version seen since shows; each record once. For one delivery, or for every delivery.
 */
export async function countResettled(db: Db, sinceMs: number, deliveryId: string | null = null): Promise<number> {
  // Driven from the versions first seen since then (a newer version came after the delivery, so after `sinceMs`),
  // each looking up its record's deliveries before it (delivered_versions_pick): not from every delivered row,
  // which grows with every export and run kept (350 ms for 480,000 rows on SQLite, on the serving thread).
  let select = db
    .selectFrom('record_versions as v')
    .innerJoin('delivered_versions as d', (join) =>
      join.onRef('d.pick_id', '=', 'v.pick_id').on('d.at_ms', '>=', sinceMs).onRef('d.at_ms', '<', 'v.first_ms'),
    )
    .innerJoin('delivered_files as f', 'f.id', 'd.source')
    .innerJoin('record_bodies as was', 'was.digest', 'd.digest')
    .innerJoin('record_bodies as now', 'now.digest', 'v.digest')
    .select((eb) => eb.fn.count<number>('d.pick_id').distinct().as('n'))
    .where('v.first_ms', '>', sinceMs)
    .where('f.kind', '=', 'run')
    .where('was.result', 'is not', null)
    .where((eb) => eb.or([eb('now.result', 'is', null), eb('now.result', '!=', eb.ref('was.result'))]));
  if (deliveryId !== null) select = select.where('f.delivery_id', '=', deliveryId);
  return Number((await select.executeTakeFirst())?.n ?? 0);
}

/** Which of `ids` some export or delivery run delivered (within retention). */
export async function deliveredAmong(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of chunks(ids, 500)) {
    const rows = await db.selectFrom('delivered_versions').select('pick_id').distinct().where('pick_id', 'in', chunk).execute();
    for (const row of rows) found.add(row.pick_id);
  }
  return found;
}

/** Files still being read back long after they ended: their instance stopped first. Said failed, with why. */
export async function failAbandoned(db: Db, beforeMs: number): Promise<number> {
  const result = await db
    .updateTable('delivered_files')
    .set({ kept: 'failed', error: 'its portal instance stopped before what it delivered was recorded' })
    .where('kept', '=', 'pending')
    .where('at_ms', '<', beforeMs)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
