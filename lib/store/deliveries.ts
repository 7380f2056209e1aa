import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, DeliveriesTable, DeliveryRunsTable } from './schema';

/**
 * Scheduled deliveries and their runs. A due time is run once across every instance: the run row for
 * (delivery, due time, attempt) can be inserted only once (a unique index), and whoever inserts it runs
 * it. A run holds a lease while it works; one whose lease ran out (its instance died) is marked failed,
 * and retried once (attempt 2) by whichever instance notices first.
 */

type Db = Kysely<Database>;

export interface Delivery {
  id: string;
  name: string;
  kind: 'picks' | 'results' | 'changes';
  format: 'csv' | 'json';
  filters: Record<string, string>;
  schedule: string;
  /** Without its secret: a directory's folder; an SFTP host, port, username, path; a webhook's URL. */
  destination: Record<string, unknown> & { type: 'directory' | 'sftp' | 'webhook' };
  /** Sealed (lib/deliveries/secrets.ts); never leaves the server. */
  secret: string | null;
  hostKey: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  paused: boolean;
  pauseReason: string | null;
  failures: number;
  lastDueMs: number;
  /** For `changes` deliveries: the entries up to this detectedAt were delivered by the last successful run. */
  changesUntil: string | null;
}

export interface Run {
  id: string;
  deliveryId: string;
  dueMs: number | null;
  trigger: 'schedule' | 'manual' | 'retry';
  attempt: number;
  instance: string;
  startedAt: string;
  finishedAt: string | null;
  outcome: 'running' | 'complete' | 'failed';
  records: number | null;
  bytes: number | null;
  sha256: string | null;
  file: string | null;
  error: string | null;
  durationMs: number | null;
}

const toDelivery = (row: Selectable<DeliveriesTable>): Delivery => ({
  id: row.id,
  name: row.name,
  kind: row.kind as Delivery['kind'],
  format: row.format as Delivery['format'],
  filters: JSON.parse(row.filters) as Record<string, string>,
  schedule: row.schedule,
  destination: JSON.parse(row.destination) as Delivery['destination'],
  secret: row.secret,
  hostKey: row.host_key,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  paused: row.paused === 1,
  pauseReason: row.pause_reason,
  failures: Number(row.failures),
  lastDueMs: Number(row.last_due_ms),
  changesUntil: row.changes_until,
});

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
});

export async function listDeliveries(db: Db): Promise<Delivery[]> {
  return (await db.selectFrom('deliveries').selectAll().orderBy('name').execute()).map(toDelivery);
}

/** The shape of a delivery's id: anything else is no delivery, without asking the store. */
export const isDeliveryId = (id: string) => /^dlv_[a-f0-9]{16}$/.test(id);

export async function findDelivery(db: Db, id: string): Promise<Delivery | undefined> {
  const row = await db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toDelivery(row);
}

export type NewDelivery = Omit<Delivery, 'paused' | 'pauseReason' | 'failures' | 'changesUntil' | 'hostKey'>;

export async function insertDelivery(db: Db, d: NewDelivery): Promise<void> {
  await db
    .insertInto('deliveries')
    .values({
      id: d.id,
      name: d.name,
      kind: d.kind,
      format: d.format,
      filters: JSON.stringify(d.filters),
      schedule: d.schedule,
      destination: JSON.stringify(d.destination),
      secret: d.secret,
      host_key: null,
      created_by: d.createdBy,
      created_at: d.createdAt,
      updated_at: d.updatedAt,
      paused: 0,
      pause_reason: null,
      failures: 0,
      last_due_ms: d.lastDueMs,
      changes_until: null,
    })
    .execute();
}

export interface DeliveryChange {
  name?: string;
  kind?: Delivery['kind'];
  format?: Delivery['format'];
  filters?: Record<string, string>;
  schedule?: string;
  destination?: Delivery['destination'];
  secret?: string | null;
  hostKey?: string | null;
  paused?: boolean;
  pauseReason?: string | null;
  failures?: number;
  lastDueMs?: number;
  changesUntil?: string | null;
}

export async function updateDelivery(db: Db, id: string, change: DeliveryChange, now = new Date().toISOString()): Promise<boolean> {
  const set: Record<string, unknown> = { updated_at: now };
  if (change.name !== undefined) set.name = change.name;
  if (change.kind !== undefined) set.kind = change.kind;
  if (change.format !== undefined) set.format = change.format;
  if (change.filters !== undefined) set.filters = JSON.stringify(change.filters);
  if (change.schedule !== undefined) set.schedule = change.schedule;
  if (change.destination !== undefined) set.destination = JSON.stringify(change.destination);
  if (change.secret !== undefined) set.secret = change.secret;
  if (change.hostKey !== undefined) set.host_key = change.hostKey;
  if (change.paused !== undefined) set.paused = change.paused ? 1 : 0;
  if (change.pauseReason !== undefined) set.pause_reason = change.pauseReason;
  if (change.failures !== undefined) set.failures = change.failures;
  if (change.lastDueMs !== undefined) set.last_due_ms = change.lastDueMs;
  if (change.changesUntil !== undefined) set.changes_until = change.changesUntil;
  const result = await db.updateTable('deliveries').set(set).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteDelivery(db: Db, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('delivery_runs').where('delivery_id', '=', id).execute();
    const result = await trx.deleteFrom('deliveries').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

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

/** Inserts the run; false when (delivery, due time, attempt) was already taken by another instance. */
export async function claimRun(db: Db, claim: Claim): Promise<boolean> {
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
    .onConflict((oc) => oc.columns(['delivery_id', 'due_ms', 'attempt']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function renewRun(db: Db, runId: string, until: number): Promise<void> {
  await db.updateTable('delivery_runs').set({ lease_expires: until }).where('id', '=', runId).where('outcome', '=', 'running').execute();
}

export type RunResult = Pick<Run, 'outcome' | 'records' | 'bytes' | 'sha256' | 'file' | 'error'> & {
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
      finished_at: new Date(result.finishedMs).toISOString(),
    })
    .where('id', '=', runId)
    .execute();
}

/** Runs whose instance stopped mid-way (lease run out): marked failed, returned so one can be retried. */
export async function reapCrashedRuns(db: Db, now: number): Promise<Run[]> {
  const rows = await db
    .updateTable('delivery_runs')
    .set({
      outcome: 'failed',
      error: 'the run stopped before it finished (its portal instance went away)',
      finished_at: new Date(now).toISOString(),
    })
    .where('outcome', '=', 'running')
    .where('lease_expires', '<', now)
    .returningAll()
    .execute();
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

/** The latest run of each delivery (the list page and the overview). */
export async function latestRuns(db: Db): Promise<Map<string, Run>> {
  const rows = await db
    .selectFrom('delivery_runs as r')
    .selectAll('r')
    .where('r.started_ms', '=', (eb) =>
      eb
        .selectFrom('delivery_runs as s')
        .select((e) => e.fn.max('s.started_ms').as('m'))
        .whereRef('s.delivery_id', '=', 'r.delivery_id'),
    )
    .execute();
  return new Map(rows.map((row) => [row.delivery_id, toRun(row)]));
}

/** Counts a failure in a row (pausing after `limit`), or clears the count after a success. */
export async function recordOutcome(db: Db, id: string, ok: boolean, error: string | null, limit = 3): Promise<{ paused: boolean }> {
  if (ok) {
    await db.updateTable('deliveries').set({ failures: 0 }).where('id', '=', id).execute();
    return { paused: false };
  }
  const row = await db
    .updateTable('deliveries')
    .set({ failures: sql<number>`failures + 1` })
    .where('id', '=', id)
    .returning(['failures'])
    .executeTakeFirst();
  if (row && Number(row.failures) >= limit) {
    await db
      .updateTable('deliveries')
      .set({ paused: 1, pause_reason: `Paused after ${limit} failed runs in a row. Last error: ${error ?? 'unknown'}` })
      .where('id', '=', id)
      .execute();
    return { paused: true };
  }
  return { paused: false };
}
