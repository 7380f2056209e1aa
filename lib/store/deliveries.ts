import type { RecordFormat } from '../vocabulary/formats';
import { sql, type Kysely, type Selectable } from 'kysely';
import { openAtRest, sealAtRest } from './at-rest';
import type { Database, DeliveriesTable } from './schema';
// Runs live in their own module; callers reach both through this one.
export * from './delivery-runs';

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
  format: RecordFormat;
  filters: Record<string, string>;
  schedule: string;
  /** Without its secret: a directory's folder; an SFTP host, port, username, path; a webhook's URL. */
  destination: Record<string, unknown> & { type: 'directory' | 'sftp' | 'webhook' | 's3' | 'postgres' };
  /** Sealed (lib/deliveries/secrets.ts); never leaves the server. */
  secret: string | null;
  hostKey: string | null;
  /** The recipient's OpenPGP public key its files are encrypted to, with its fingerprint; null: placed in clear. */
  encryptTo: { armoured: string; fingerprint: string } | null;
  /** Corrections are sent to the destination after each poll that changes records it delivered. */
  corrections: boolean;
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

/** A webhook's URL is sealed at rest for this delivery (lib/store/at-rest.ts); other destinations hold no credential in clear. */
const urlBinding = (id: string) => `delivery\0${id}`;
function destinationKept(id: string, destination: Delivery['destination']): string {
  if (destination.type !== 'webhook' || typeof destination.url !== 'string') return JSON.stringify(destination);
  return JSON.stringify({ ...destination, url: sealAtRest(destination.url, urlBinding(id)) });
}
function destinationRead(id: string, text: string): Delivery['destination'] {
  const destination = JSON.parse(text) as Delivery['destination'];
  return destination.type === 'webhook' && typeof destination.url === 'string'
    ? { ...destination, url: openAtRest(destination.url, urlBinding(id)) }
    : destination;
}

const toDelivery = (row: Selectable<DeliveriesTable>): Delivery => ({
  id: row.id,
  name: row.name,
  kind: row.kind as Delivery['kind'],
  format: row.format as Delivery['format'],
  filters: JSON.parse(row.filters) as Record<string, string>,
  schedule: row.schedule,
  destination: destinationRead(row.id, row.destination),
  secret: row.secret,
  hostKey: row.host_key,
  encryptTo: row.encrypt_to && row.encrypt_fingerprint ? { armoured: row.encrypt_to, fingerprint: row.encrypt_fingerprint } : null,
  corrections: row.corrections === 1,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  paused: row.paused === 1,
  pauseReason: row.pause_reason,
  failures: Number(row.failures),
  lastDueMs: Number(row.last_due_ms),
  changesUntil: row.changes_until,
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

export type NewDelivery = Omit<Delivery, 'paused' | 'pauseReason' | 'failures' | 'changesUntil' | 'hostKey' | 'encryptTo' | 'corrections'> &
  Partial<Pick<Delivery, 'encryptTo' | 'corrections'>>;

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
      destination: destinationKept(d.id, d.destination),
      secret: d.secret,
      host_key: null,
      encrypt_to: d.encryptTo?.armoured ?? null,
      encrypt_fingerprint: d.encryptTo?.fingerprint ?? null,
      corrections: d.corrections ? 1 : 0,
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
  encryptTo?: Delivery['encryptTo'];
  corrections?: boolean;
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
  if (change.destination !== undefined) set.destination = destinationKept(id, change.destination);
  if (change.secret !== undefined) set.secret = change.secret;
  if (change.hostKey !== undefined) set.host_key = change.hostKey;
  if (change.encryptTo !== undefined) {
    set.encrypt_to = change.encryptTo?.armoured ?? null;
    set.encrypt_fingerprint = change.encryptTo?.fingerprint ?? null;
  }
  if (change.corrections !== undefined) set.corrections = change.corrections ? 1 : 0;
  if (change.paused !== undefined) set.paused = change.paused ? 1 : 0;
  if (change.pauseReason !== undefined) set.pause_reason = change.pauseReason;
  if (change.failures !== undefined) set.failures = change.failures;
  if (change.lastDueMs !== undefined) set.last_due_ms = change.lastDueMs;
  if (change.changesUntil !== undefined) set.changes_until = change.changesUntil;
  const result = await db.updateTable('deliveries').set(set).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Pins an SFTP host key on first use: set only while none is pinned, so two first runs cannot pin two keys.
 * Returns the key pinned now (this one, or the one that got there first).
 */
export async function pinHostKey(db: Db, id: string, fingerprint: string): Promise<string | null> {
  await db.updateTable('deliveries').set({ host_key: fingerprint }).where('id', '=', id).where('host_key', 'is', null).execute();
  const row = await db.selectFrom('deliveries').select('host_key').where('id', '=', id).executeTakeFirst();
  return row?.host_key ?? null;
}

export async function deleteDelivery(db: Db, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('delivery_runs').where('delivery_id', '=', id).execute();
    const result = await trx.deleteFrom('deliveries').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
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
