import type { Kysely } from 'kysely';
import { latestStates } from '../store/feed-health';
import {
  alertsByIds,
  alertsIn,
  claimAlerts,
  lastSentFor,
  markAttemptFailed,
  markSent,
  moveAlerts,
  reclaimStuck,
  type Alert,
} from '../store/alerts';
import { claimSends, dueSends, markSends, queueSends, type AlertSend, type AlertWebhook } from '../store/alert-channels';
import type { Database } from '../store/schema';
import { HELD_KINDS, messageFor, nextTry, SEND_CLAIM_MS, type Message } from '.';

type Db = Kysely<Database>;

export interface DispatchOptions {
  now: number;
  /** Who receives this alert by email as it happens (its kind, and for a token's or delivery's, its owner). */
  recipients: (alert: Alert) => Promise<string[]>;
  /** The mail channel; null when no SMTP server is set (alerts are then marked unsent, kept in the log). */
  send: ((message: Message) => Promise<void>) | null;
  portalUrl: string;
  /** The webhook channel: the shared webhooks, and one POST of the alerts of one kind to one of them. */
  webhooks?: {
    list: () => Promise<AlertWebhook[]>;
    post: (hook: AlertWebhook, alerts: Alert[]) => Promise<void>;
  };
}

export interface Dispatched {
  sent: number;
  dropped: number;
  failed: number;
  webhooksSent: number;
  webhooksFailed: number;
}

/**
 * One dispatch: held alerts whose state lasted become pending (the rest are dropped) and get a send queued
 * for each webhook that takes their kind; then, side by side so neither waits on the other, the due emails
 * go out by kind and the due webhook sends by webhook and kind. Each is claimed first, so two instances
 * dispatching at once send everything once; each channel is retried on its own.
 */
export async function dispatchAlerts(db: Db, options: DispatchOptions): Promise<Dispatched> {
  const { now } = options;
  await reclaimStuck(db, now);
  const dropped = await releaseHeld(db, options);
  const [mail, hooks] = await Promise.all([sendEmails(db, options), sendWebhooks(db, options)]);
  return { dropped, ...mail, ...hooks };
}

/**
 * Held alerts due now become pending (their webhook sends queued) or dropped, all in one transaction: another
 * dispatcher sees the whole release or none of it, so alerts of one kind that came due together go out together
 * (by email and to each webhook), not as what one dispatcher had released so far. The decisions read first,
 * outside it; the moves go in the order of the alerts, so two releasing at once wait on the same first row.
 */
async function releaseHeld(db: Db, options: DispatchOptions): Promise<number> {
  const held = await alertsIn(db, 'held', options.now);
  if (held.length === 0) return 0;
  const current = await latestStates(db);
  const hooks = options.webhooks ? await options.webhooks.list() : [];
  const decided: { alert: Alert; to: 'pending' | 'dropped'; error: string }[] = [];
  for (const alert of held) {
    const state = current.get(alert.sport);
    // An event (a change of scope, a delivery's run) is news at once; a state is news once it has lasted.
    const lastedOut =
      !HELD_KINDS.has(alert.kind) || (state && state.state === alert.state && state.side === alert.side && state.at <= alert.createdMs);
    // A recovery is news only when the trouble before it was sent.
    const news = alert.kind !== 'sport.recovered' || (await lastSentFor(db, alert.sport, alert.createdMs)) !== null;
    const error = lastedOut ? 'nothing was sent about the trouble before it' : 'the state did not hold';
    decided.push({ alert, to: lastedOut && news ? 'pending' : 'dropped', error });
  }
  return db.transaction().execute(async (tx) => {
    let dropped = 0;
    for (const { alert, to, error } of decided) {
      const moved = await moveAlerts(tx, [alert.id], 'held', to, to === 'dropped' ? { error } : {});
      if (to === 'dropped') dropped += moved;
      else if (moved)
        await queueSends(
          tx,
          alert,
          hooks.filter((h) => h.kinds.includes(alert.kind)).map((h) => h.id),
        );
    }
    return dropped;
  });
}

async function sendEmails(db: Db, options: DispatchOptions): Promise<Pick<Dispatched, 'sent' | 'failed'>> {
  const { now } = options;
  let sent = 0;
  let failed = 0;
  const byKind = new Map<string, Alert[]>();
  for (const alert of await alertsIn(db, 'pending', now)) byKind.set(alert.kind, [...(byKind.get(alert.kind) ?? []), alert]);
  for (const group of byKind.values()) {
    const ids = group.map((a) => a.id);
    if (!(await claimAlerts(db, ids, now + SEND_CLAIM_MS))) continue; // another dispatcher has them
    // One message per set of recipients: an alert about one token or delivery goes to its owner, not to other owners.
    const byRecipients = new Map<string, { to: string[]; alerts: Alert[] }>();
    for (const alert of group) {
      const to = await options.recipients(alert);
      const key = to.join('\n');
      byRecipients.set(key, { to, alerts: [...(byRecipients.get(key)?.alerts ?? []), alert] });
    }
    for (const { to, alerts } of byRecipients.values()) {
      const mine = alerts.map((a) => a.id);
      if (!options.send || to.length === 0) {
        await moveAlerts(db, mine, 'sending', 'unsent', {
          error: options.send ? 'nobody receives this kind of alert by email as it happens' : 'no SMTP_URL is set: kept here, not mailed',
        });
        continue;
      }
      try {
        await options.send(messageFor(alerts, to, options.portalUrl));
        await markSent(db, mine, to, now);
        sent += alerts.length;
      } catch (error) {
        await markAttemptFailed(db, mine, (error as Error).message, nextTry(Math.max(...alerts.map((a) => a.attempts)), now), to);
        failed += alerts.length;
      }
    }
  }
  return { sent, failed };
}

async function sendWebhooks(db: Db, options: DispatchOptions): Promise<Pick<Dispatched, 'webhooksSent' | 'webhooksFailed'>> {
  const result = { webhooksSent: 0, webhooksFailed: 0 };
  if (!options.webhooks) return result;
  const due = await dueSends(db, options.now);
  if (due.length === 0) return result;
  const hooks = new Map((await options.webhooks.list()).map((h) => [h.id, h]));
  const groups = new Map<string, AlertSend[]>();
  for (const send of due) groups.set(`${send.webhookId}|${send.kind}`, [...(groups.get(`${send.webhookId}|${send.kind}`) ?? []), send]);
  // Every webhook at once: one that hangs until its time-out holds up no other.
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const ids = await claimSends(db, group, options.now + SEND_CLAIM_MS);
      if (ids.length === 0) return;
      const mine = group.filter((s) => ids.includes(s.id));
      const hook = hooks.get(mine[0]!.webhookId);
      if (!hook) return markSends(db, ids, { ok: false, error: 'the webhook was removed', nextMs: null });
      try {
        await options.webhooks!.post(
          hook,
          await alertsByIds(
            db,
            mine.map((s) => s.alertId),
          ),
        );
        await markSends(db, ids, { ok: true, at: options.now });
        result.webhooksSent += ids.length;
      } catch (error) {
        const next = nextTry(Math.max(...mine.map((s) => s.attempts)), options.now);
        await markSends(db, ids, { ok: false, error: (error as Error).message, nextMs: next });
        result.webhooksFailed += ids.length;
      }
    }),
  );
  return result;
}
