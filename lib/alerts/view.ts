import 'server-only';
import { toAppError } from '../errors';
import { fromStore } from '../store';
import { latestDigests, listWebhooks } from '../store/alert-channels';
import { digestView, notificationLog } from './log';
import { webhookView } from './webhooks';
import type { Role } from '../vocabulary/roles';
import { ALERT_KIND_LABELS, kindsFor, subscriptionOf, subscriptions } from './subscriptions';

/** What /alerts shows: the notification log, or the error to show. */
export async function alertsForPage() {
  try {
    const [alerts, digests, webhooks] = await fromStore((db) => Promise.all([notificationLog(db), latestDigests(db), listWebhooks(db)]));
    return { ok: true as const, alerts, digests: digests.map(digestView), webhooks: webhooks.map(webhookView) };
  } catch (error) {
    return { ok: false as const, error: toAppError(error).toJSON() };
  }
}

/** The signed-in person's choice of alert emails, for the form on /health (null when the store is away). */
export async function subscriptionForPage(email: string, role: Role) {
  try {
    const mine = await fromStore((db) => subscriptionOf(db, email));
    return {
      kinds: mine?.kinds ?? [],
      delivery: mine?.delivery ?? 'each',
      chosen: mine?.chosen ?? false,
      available: kindsFor(role).map((kind) => ({ kind, label: ALERT_KIND_LABELS[kind] })),
    };
  } catch {
    return null;
  }
}

/** Everyone's choice, for admins on /alerts. */
export async function subscriptionsForPage() {
  try {
    return await fromStore(subscriptions);
  } catch {
    return null;
  }
}
