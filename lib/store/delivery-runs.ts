import type { Kysely, Selectable } from 'kysely';
import type { Database, DeliveryRunsTable } from './schema';
import { waitHitBound } from '../waits';

/**
 * Runs of scheduled deliveries (lib/store/deliveries.ts has the deliveries). A due time is run once across
 * every instance (a unique index on delivery, due time and attempt), and a delivery has at most one run in
 * flight (a unique index on its running runs). A run holds a lease while it works.
 */

import type { z } from 'zod';
import type { runSchema, tableCountsSchema } from '../vocabulary/delivery-run';

type Db = Kysely<Database>;

/** A delivery's run (lib/vocabulary/delivery-run.ts: the schema the API's document is made from). */
export type Run = z.infer<typeof runSchema>;
export type TableCounts = z.infer<typeof tableCountsSchema>;

const toRun = (row: Selectable<DeliveryRunsTable>): Run => ({
  id: row.id,
  deliveryId: row.delivery_id,
  dueMs: row.due_ms === null ? null : Number(row.due_ms),
  trigger: row.trigger as Run['trigger'],
  attempt: Number(row.attempt),
  instance: row.instance,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  outcome: row.outcome as Run['outcome'],
  records: row.records === null ? null : Number(row.records),
  bytes: row.bytes === null ? null : Number(row.bytes),
  sha256: row.sha256,
  file: row.file,
  error: row.error,
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  outsideLicence: row.outside_licence === null ? null : Number(row.outside_licence),
  table: row.table_counts ? (JSON.parse(row.table_counts) as TableCounts) : null,
});

export interface Claim {
  id: string;
  deliveryId: string;
  dueMs: number | null;
  trigger: Run['trigger'];
  attempt: number;
  instance: string;
  now: number;
  leaseMs: number;
}

/**
 * Inserts the run: 'claimed' (run it), 'taken' (another instance has this due time and attempt), or 'busy'
 * (a run of this delivery is in flight: one at a time, by a unique index on running runs).
 */
export async function claimRun(db: Db, claim: Claim): Promise<'claimed' | 'taken' | 'busy'> {
  const result = await db
    .insertInto('delivery_runs')
    .values({
      id: claim.id,
      delivery_id: claim.deliveryId,
      due_ms: claim.dueMs,
      trigger: claim.trigger,
      attempt: claim.attempt,
      instance: claim.instance,
      lease_expires: claim.now + claim.leaseMs,
      started_at: new Date(claim.now).toISOString(),
      started_ms: claim.now,
      outcome: 'running',
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return 'claimed';
  return (await runningRunOf(db, claim.deliveryId)) ? 'busy' : 'taken';
}

/** Removes a run claimed but never started (its walk slot was refused): as if it had not been claimed. */
export async function dropUnstartedRun(db: Db, runId: string): Promise<void> {
  await db.deleteFrom('delivery_runs').where('id', '=', runId).where('outcome', '=', 'running').execute();
}

/** The run of this delivery in flight, if any. */
export async function runningRunOf(db: Db, deliveryId: string): Promise<Run | undefined> {
  const row = await db
    .selectFrom('delivery_runs')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .where('outcome', '=', 'running')
    .executeTakeFirst();
  return row && toRun(row);
}

/** Whether the run is still running (not finished, nor taken for crashed by another instance). */
export async function stillRunning(db: Db, runId: string): Promise<boolean> {
  const row = await db.selectFrom('delivery_runs').select('outcome').where('id', '=', runId).executeTakeFirst();
  return row?.outcome === 'running';
}

export async function renewRun(db: Db, runId: string, until: number): Promise<void> {
  await db.updateTable('delivery_runs').set({ lease_expires: until }).where('id', '=', runId).where('outcome', '=', 'running').execute();
}

export type RunResult = Pick<Run, 'outcome' | 'records' | 'bytes' | 'sha256' | 'file' | 'error' | 'outsideLicence'> & {
  table?: TableCounts | null;
  finishedMs: number;
  durationMs: number;
};

export async function finishRun(db: Db, runId: string, result: RunResult): Promise<void> {
  await db
    .updateTable('delivery_runs')
    .set({
      outcome: result.outcome,
      records: result.records,
      bytes: result.bytes,
      sha256: result.sha256,
      file: result.file,
      error: result.error,
      duration_ms: result.durationMs,
      outside_licence: result.outsideLicence,
      table_counts: result.table ? JSON.stringify(result.table) : null,
      finished_at: new Date(result.finishedMs).toISOString(),
    })
    .where('id', '=', runId)
    .execute();
}

/** Runs whose instance stopped mid-way (lease run out): marked failed, returned so one can be retried (or found placed). */
export async function reapCrashedRuns(db: Db, now: number, alive: Iterable<string> = []): Promise<Run[]> {
  const skip = [...alive];
  let reap = db
    .updateTable('delivery_runs')
    .set({
      outcome: 'failed',
      error: 'the run stopped before it finished (its portal instance went away)',
      finished_at: new Date(now).toISOString(),
    })
    .where('outcome', '=', 'running')
    .where('lease_expires', '<', now);
  // The caller's own runs, still running in its process, are never its crashed ones (their lease lapsed while the store was away).
  if (skip.length > 0) reap = reap.where('id', 'not in', skip);
  const rows = await reap.returningAll().execute();
  if (rows.length > 0) waitHitBound('lease', rows.length);
  return rows.map(toRun);
}

export async function listRuns(db: Db, deliveryId: string, limit = 100): Promise<Run[]> {
  const rows = await db
    .selectFrom('delivery_runs')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('started_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRun);
}

/**
 * The latest run of each delivery (the list page and the overview, on every view). Driven from the deliveries,
 * one index lookup each: runs grow by one a minute for a delivery every minute, and must not be scanned.
 */
export async function latestRuns(db: Db): Promise<Map<string, Run>> {
  const rows = await db
    .selectFrom('deliveries as d')
    .innerJoin('delivery_runs as r', (join) =>
      join.on('r.id', '=', (eb) =>
        eb.selectFrom('delivery_runs as s').select('s.id').whereRef('s.delivery_id', '=', 'd.id').orderBy('s.started_ms', 'desc').limit(1),
      ),
    )
    .selectAll('r')
    .execute();
  return new Map(rows.map((row) => [row.delivery_id, toRun(row)]));
}

/**
 * Per delivery (or for one), how many of its latest finished runs (up to `most`) delivered 0 records in a row.
 * Each delivery's runs are read from the `most`-th latest finished one on, through the index on start time.
 */
export async function emptyStreaks(db: Db, most = 3, deliveryId?: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('deliveries as d')
    // CROSS JOIN: SQLite keeps this order (deliveries outside), so the start-time bound below can use the index.
    .crossJoin('delivery_runs as r')
    .select(['r.delivery_id', 'r.outcome', 'r.records', 'r.started_ms'])
    .whereRef('r.delivery_id', '=', 'd.id')
    .where('r.outcome', '!=', 'running')
    .where('r.started_ms', '>=', (eb) =>
      eb.fn.coalesce(
        eb
          .selectFrom('delivery_runs as s')
          .select('s.started_ms')
          .whereRef('s.delivery_id', '=', 'd.id')
          .where('s.outcome', '!=', 'running')
          .orderBy('s.started_ms', 'desc')
          .limit(1)
          .offset(most - 1),
        eb.lit(0),
      ),
    )
    .$if(deliveryId !== undefined, (q) => q.where('d.id', '=', deliveryId!))
    .execute();
  const latest = new Map<string, Array<(typeof rows)[number]>>();
  for (const row of rows) latest.set(row.delivery_id, [...(latest.get(row.delivery_id) ?? []), row]);
  const streaks = new Map<string, number>();
  for (const [id, runs] of latest) {
    const newestFirst = runs.sort((a, b) => Number(b.started_ms) - Number(a.started_ms)).slice(0, most);
    const streak = newestFirst.findIndex((run) => !(run.outcome === 'complete' && Number(run.records) === 0));
    const length = streak === -1 ? newestFirst.length : streak;
    if (length > 0) streaks.set(id, length);
  }
  return streaks;
}
