import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema';
import type { AlertsTable } from './schema-alerts';

type Db = Kysely<Database>;

/** The notification log (lib/alerts): alerts held, pending, sent, dropped or failed, and who they went to. */

export const ALERT_STATUSES = ['held', 'pending', 'sending', 'sent', 'dropped', 'unsent', 'failed'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export interface Alert {
  id: string;
  kind: string;
  sport: string;
  state: string;
  side: string | null;
  reason: string;
  detail: string | null;
  createdMs: number;
  dueMs: number;
  status: AlertStatus;
  attempts: number;
  nextMs: number | null;
  error: string | null;
  sentMs: number | null;
  recipients: string[];
}

const toAlert = (row: Selectable<AlertsTable>): Alert => ({
  id: row.id,
  kind: row.kind,
  sport: row.sport,
  state: row.state,
  side: row.side,
  reason: row.reason,
  detail: row.detail,
  createdMs: Number(row.created_ms),
  dueMs: Number(row.due_ms),
  status: row.status as AlertStatus,
  attempts: Number(row.attempts),
  nextMs: row.next_ms === null ? null : Number(row.next_ms),
  error: row.error,
  sentMs: row.sent_ms === null ? null : Number(row.sent_ms),
  recipients: row.recipients ? (JSON.parse(row.recipients) as string[]) : [],
});

export type AlertInput = Pick<Alert, 'kind' | 'sport' | 'state' | 'side' | 'reason' | 'detail' | 'createdMs' | 'dueMs'>;

export async function queueAlerts(db: Db, alerts: AlertInput[]): Promise<void> {
  if (alerts.length === 0) return;
  await db
    .insertInto('alerts')
    .values(
      alerts.map((a) => ({
        id: `${a.createdMs}:${a.kind}:${a.sport}`,
        kind: a.kind,
        sport: a.sport,
        state: a.state,
        side: a.side,
        reason: a.reason,
        detail: a.detail,
        created_ms: a.createdMs,
        due_ms: a.dueMs,
        status: 'held',
      })),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Alerts in a status, oldest first; `dueBy` keeps those due (and, for retries, whose next try is due). */
export async function alertsIn(db: Db, status: AlertStatus, dueBy?: number): Promise<Alert[]> {
  let query = db.selectFrom('alerts').selectAll().where('status', '=', status);
  if (dueBy !== undefined)
    query = query.where('due_ms', '<=', dueBy).where((eb) => eb.or([eb('next_ms', 'is', null), eb('next_ms', '<=', dueBy)]));
  return (await query.orderBy('created_ms').orderBy('id').execute()).map(toAlert);
}

/** Moves alerts from one status to another, only those still in the first: how many moved (a claim when it is all). */
export async function moveAlerts(
  db: Db,
  ids: string[],
  from: AlertStatus,
  to: AlertStatus,
  set: { error?: string | null } = {},
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('alerts')
    .set({ status: to, ...(set.error !== undefined ? { error: set.error } : {}) })
    .where('id', 'in', ids)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Claims pending alerts for sending until `untilMs` (all or none moved: false when another dispatcher has any of them). */
export async function claimAlerts(db: Db, ids: string[], untilMs: number): Promise<boolean> {
  const partial = new Error('claimed in part');
  try {
    await db.transaction().execute(async (tx) => {
      const result = await tx
        .updateTable('alerts')
        .set({ status: 'sending', next_ms: untilMs })
        .where('id', 'in', ids)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== ids.length) throw partial; // rolls back what this one took
    });
    return true;
  } catch (error) {
    if (error === partial) return false;
    throw error;
  }
}

/** Alerts left `sending` by an instance that stopped mid-send go back to pending once their claim ran out. */
export async function reclaimStuck(db: Db, now: number): Promise<void> {
  await db.updateTable('alerts').set({ status: 'pending' }).where('status', '=', 'sending').where('next_ms', '<=', now).execute();
}

export async function markSent(db: Db, ids: string[], recipients: string[], at: number): Promise<void> {
  await db
    .updateTable('alerts')
    .set((eb) => ({
      status: 'sent',
      sent_ms: at,
      recipients: JSON.stringify(recipients),
      error: null,
      attempts: eb('attempts', '+', 1),
      next_ms: null,
    }))
    .where('id', 'in', ids)
    .execute();
}

/** A failed attempt: tried again at `nextMs`, or failed for good when there is none. */
export async function markAttemptFailed(db: Db, ids: string[], error: string, nextMs: number | null, recipients: string[]): Promise<void> {
  await db
    .updateTable('alerts')
    .set((eb) => ({
      status: nextMs === null ? 'failed' : 'pending',
      error: error.slice(0, 500),
      attempts: eb('attempts', '+', 1),
      next_ms: nextMs,
      recipients: JSON.stringify(recipients),
    }))
    .where('id', 'in', ids)
    .execute();
}

export async function alertsByIds(db: Db, ids: string[]): Promise<Alert[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('alerts').selectAll().where('id', 'in', ids).orderBy('created_ms').execute()).map(toAlert);
}

/** Alerts raised in [fromMs, toMs) that were news (neither still held nor dropped as a flap), oldest first: a digest's. */
export async function alertsSince(db: Db, fromMs: number, toMs: number): Promise<Alert[]> {
  const rows = await db
    .selectFrom('alerts')
    .selectAll()
    .where('created_ms', '>=', fromMs)
    .where('created_ms', '<', toMs)
    .where('status', 'not in', ['held', 'dropped'])
    .orderBy('created_ms')
    .execute();
  return rows.map(toAlert);
}

export async function latestAlerts(db: Db, limit = 200): Promise<Alert[]> {
  return (await db.selectFrom('alerts').selectAll().orderBy('created_ms', 'desc').limit(limit).execute()).map(toAlert);
}

/** "Send again": a sent, failed or unsent alert goes out at the next dispatch. False for no such alert, or one still on its way. */
export async function resendAlert(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('alerts')
    .set({ status: 'pending', attempts: 0, next_ms: null, due_ms: now, error: null })
    .where('id', '=', id)
    .where('status', 'in', ['sent', 'failed', 'unsent', 'dropped'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether an alert for the sport was sent before `beforeMs` and after its last recovery: a recovery from nothing said is not news. */
export async function lastSentFor(db: Db, sport: string, beforeMs: number): Promise<Alert | null> {
  const row = await db
    .selectFrom('alerts')
    .selectAll()
    .where('sport', '=', sport)
    // Sent by email, or to any webhook.
    .where((eb) =>
      eb.or([eb('status', '=', 'sent'), eb('id', 'in', eb.selectFrom('alert_sends').select('alert_id').where('status', '=', 'sent'))]),
    )
    .where('created_ms', '<', beforeMs)
    .orderBy('created_ms', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toAlert(row) : null;
}
