import type { Kysely, Selectable } from 'kysely';
import { openAtRest, sealAtRest } from './at-rest';
import type { Database } from './schema';
import type { AlertDigestsTable, AlertWebhooksTable } from './schema-alerts';

type Db = Kysely<Database>;

/**
 * The alerts' other channels (lib/alerts): shared webhooks and each alert's send to them, kept apart from
 * the email so that a failing target is retried on its own and blocks nothing; and each person's daily
 * digest, one row a day, whose insert is the claim that sends it once across instances.
 */

export interface AlertWebhook {
  id: string;
  name: string;
  /** The webhook's URL, or `mailto:<address>` for a shared address. */
  url: string;
  format: 'signed' | 'chat' | 'email';
  kinds: string[];
  /** Sealed (lib/deliveries/secrets.ts), bound to the URL; null: unsigned. */
  secret: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** What a webhook's URL is sealed for (lib/store/at-rest.ts): this webhook and no other. */
const urlBinding = (id: string) => `alert-webhook\0${id}`;

const toWebhook = (row: Selectable<AlertWebhooksTable>): AlertWebhook => ({
  id: row.id,
  name: row.name,
  url: openAtRest(row.url, urlBinding(row.id)),
  format: row.format === 'chat' || row.format === 'email' ? row.format : 'signed',
  kinds: JSON.parse(row.kinds) as string[],
  secret: row.secret,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export async function listWebhooks(db: Db): Promise<AlertWebhook[]> {
  return (await db.selectFrom('alert_webhooks').selectAll().orderBy('name').execute()).map(toWebhook);
}

export async function getWebhook(db: Db, id: string): Promise<AlertWebhook | null> {
  const row = await db.selectFrom('alert_webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toWebhook(row) : null;
}

export async function saveWebhook(db: Db, hook: AlertWebhook): Promise<void> {
  const values = {
    id: hook.id,
    name: hook.name,
    url: sealAtRest(hook.url, urlBinding(hook.id)),
    format: hook.format,
    kinds: JSON.stringify(hook.kinds),
    secret: hook.secret,
    created_by: hook.createdBy,
    created_at: hook.createdAt,
    updated_at: hook.updatedAt,
  };
  const { id: _id, created_by: _by, created_at: _at, ...changes } = values;
  await db
    .insertInto('alert_webhooks')
    .values(values)
    .onConflict((oc) => oc.column('id').doUpdateSet(changes))
    .execute();
}

export async function deleteWebhook(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('alert_webhooks').where('id', '=', id).executeTakeFirst();
  await db.deleteFrom('alert_sends').where('webhook_id', '=', id).where('status', 'in', ['pending', 'sending']).execute();
  return Number(result.numDeletedRows) === 1;
}

export const SEND_STATUSES = ['pending', 'sending', 'sent', 'failed'] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

export interface AlertSend {
  id: string;
  alertId: string;
  webhookId: string;
  kind: string;
  status: SendStatus;
  attempts: number;
  nextMs: number | null;
  error: string | null;
  sentMs: number | null;
}

const toSend = (row: Selectable<Database['alert_sends']>): AlertSend => ({
  id: row.id,
  alertId: row.alert_id,
  webhookId: row.webhook_id,
  kind: row.kind,
  status: row.status as SendStatus,
  attempts: Number(row.attempts),
  nextMs: row.next_ms === null ? null : Number(row.next_ms),
  error: row.error,
  sentMs: row.sent_ms === null ? null : Number(row.sent_ms),
});

/** Queues (or, for "send again", queues anew) an alert's send to each webhook named. */
export async function queueSends(db: Db, alert: { id: string; kind: string }, webhookIds: string[]): Promise<void> {
  if (webhookIds.length === 0) return;
  const fresh = { status: 'pending', attempts: 0, next_ms: null, error: null, sent_ms: null };
  await db
    .insertInto('alert_sends')
    .values(
      webhookIds.map((webhook) => ({
        id: `${alert.id}|${webhook}`,
        alert_id: alert.id,
        webhook_id: webhook,
        kind: alert.kind,
        ...fresh,
      })),
    )
    .onConflict((oc) => oc.column('id').doUpdateSet(fresh))
    .execute();
}

/** Sends due now: pending ones whose next try has come, and claims of a stopped instance that ran out. */
export async function dueSends(db: Db, now: number): Promise<AlertSend[]> {
  const rows = await db
    .selectFrom('alert_sends')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb.or([eb('next_ms', 'is', null), eb('next_ms', '<=', now)])]),
        eb.and([eb('status', '=', 'sending'), eb('next_ms', '<=', now)]),
      ]),
    )
    .orderBy('id')
    .execute();
  return rows.map(toSend);
}

/**
 * Claims a group of sends (one webhook, one kind) until `untilMs`, all or none, only as `seen` (status and next
 * try): the ids this dispatcher now owns, or none when another dispatcher has any of them, so a group is never
 * posted in two parts. In order of id, so two claiming at once wait on the same first row.
 */
export async function claimSends(db: Db, sends: AlertSend[], untilMs: number): Promise<string[]> {
  const partial = new Error('claimed in part');
  try {
    return await db.transaction().execute(async (tx) => {
      for (const send of [...sends].sort((a, b) => (a.id < b.id ? -1 : 1))) {
        let query = tx
          .updateTable('alert_sends')
          .set({ status: 'sending', next_ms: untilMs })
          .where('id', '=', send.id)
          .where('status', '=', send.status);
        query = send.nextMs === null ? query.where('next_ms', 'is', null) : query.where('next_ms', '=', send.nextMs);
        if (Number((await query.executeTakeFirst()).numUpdatedRows) !== 1) throw partial; // rolls back what this one took
      }
      return sends.map((s) => s.id);
    });
  } catch (error) {
    if (error === partial) return [];
    throw error;
  }
}

export async function markSends(
  db: Db,
  ids: string[],
  outcome: { ok: true; at: number } | { ok: false; error: string; nextMs: number | null },
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('alert_sends')
    .set((eb) =>
      outcome.ok
        ? { status: 'sent', sent_ms: outcome.at, error: null, next_ms: null, attempts: eb('attempts', '+', 1) }
        : {
            status: outcome.nextMs === null ? 'failed' : 'pending',
            error: outcome.error.slice(0, 500),
            next_ms: outcome.nextMs,
            attempts: eb('attempts', '+', 1),
          },
    )
    .where('id', 'in', ids)
    .execute();
}

/** Every send of these alerts (the notification log shows each webhook's outcome beside the email's). */
export async function sendsOf(db: Db, alertIds: string[]): Promise<AlertSend[]> {
  if (alertIds.length === 0) return [];
  const rows: Selectable<Database['alert_sends']>[] = [];
  for (let i = 0; i < alertIds.length; i += 500)
    rows.push(
      ...(await db
        .selectFrom('alert_sends')
        .selectAll()
        .where('alert_id', 'in', alertIds.slice(i, i + 500))
        .execute()),
    );
  return rows.map(toSend);
}

export interface Digest {
  id: string;
  email: string;
  day: string;
  alerts: number;
  status: SendStatus;
  attempts: number;
  nextMs: number | null;
  error: string | null;
  sentMs: number | null;
}

const toDigest = (row: Selectable<AlertDigestsTable>): Digest => ({
  id: row.id,
  email: row.email,
  day: row.day,
  alerts: Number(row.alerts),
  status: row.status as Digest['status'],
  attempts: Number(row.attempts),
  nextMs: row.next_ms === null ? null : Number(row.next_ms),
  error: row.error,
  sentMs: row.sent_ms === null ? null : Number(row.sent_ms),
});

/** Claims a person's digest of a day: true for the one instance whose insert made the row. */
export async function claimDigest(db: Db, email: string, day: string, untilMs: number): Promise<boolean> {
  const result = await db
    .insertInto('alert_digests')
    .values({ id: `${day} ${email}`, email, day, status: 'sending', next_ms: untilMs })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Digests to try again now (a failed attempt's next try, or a claim that ran out), each claimed before it is returned. */
export async function claimDueDigests(db: Db, now: number, untilMs: number): Promise<Digest[]> {
  const rows = await db
    .selectFrom('alert_digests')
    .selectAll()
    .where('status', 'in', ['pending', 'sending'])
    .where('next_ms', '<=', now)
    .execute();
  const owned: Digest[] = [];
  for (const row of rows) {
    const result = await db
      .updateTable('alert_digests')
      .set({ status: 'sending', next_ms: untilMs })
      .where('id', '=', row.id)
      .where('status', '=', row.status)
      .where('next_ms', '=', row.next_ms)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) owned.push(toDigest({ ...row, status: 'sending', next_ms: untilMs }));
  }
  return owned;
}

export async function markDigest(
  db: Db,
  id: string,
  outcome: { ok: true; at: number; alerts: number } | { ok: false; error: string; nextMs: number | null; alerts: number },
): Promise<void> {
  await db
    .updateTable('alert_digests')
    .set((eb) => ({
      alerts: outcome.alerts,
      attempts: eb('attempts', '+', 1),
      ...(outcome.ok
        ? { status: 'sent', sent_ms: outcome.at, error: null, next_ms: null }
        : { status: outcome.nextMs === null ? 'failed' : 'pending', error: outcome.error.slice(0, 500), next_ms: outcome.nextMs }),
    }))
    .where('id', '=', id)
    .execute();
}

export async function latestDigests(db: Db, limit = 100): Promise<Digest[]> {
  return (await db.selectFrom('alert_digests').selectAll().orderBy('day', 'desc').orderBy('email').limit(limit).execute()).map(toDigest);
}
