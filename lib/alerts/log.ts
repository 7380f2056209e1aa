import 'server-only';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { alertsAnswerSchema, WebhookOutcome } from './answers';
import { latestAlerts, type Alert } from '../store/alerts';
import { latestDigests, listWebhooks, sendsOf, type Digest } from '../store/alert-channels';
import type { Database } from '../store/schema';

/** The notification log (/alerts, GET /api/alerts): each alert with its email and webhook outcomes, and the daily digests. */

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An alert as the log shows it: the stored alert as it is, its times as ISO strings, and each webhook's outcome. */
export const alertView = ({ createdMs, dueMs, nextMs, sentMs, ...alert }: Alert, webhooks: WebhookOutcome[] = []) => ({
  ...alert,
  createdAt: iso(createdMs)!,
  dueAt: iso(dueMs)!,
  nextTryAt: iso(nextMs),
  sentAt: iso(sentMs),
  channel: 'email' as const,
  webhooks,
});

/** The notification log: the latest alerts, each with its email outcome and each webhook's. */
export async function notificationLog(db: Kysely<Database>) {
  const [alerts, hooks] = await Promise.all([latestAlerts(db), listWebhooks(db)]);
  const names = new Map(hooks.map((h) => [h.id, h.name]));
  const sends = await sendsOf(
    db,
    alerts.map((a) => a.id),
  );
  return alerts.map((a) =>
    alertView(
      a,
      sends
        .filter((s) => s.alertId === a.id)
        .map((s) => ({
          webhook: names.get(s.webhookId) ?? `${s.webhookId} (removed)`,
          status: s.status,
          attempts: s.attempts,
          error: s.error,
          sentAt: iso(s.sentMs),
        })),
    ),
  );
}

export const digestView = (d: Digest) => ({
  day: d.day,
  email: d.email,
  alerts: d.alerts,
  status: d.status,
  attempts: d.attempts,
  error: d.error,
  sentAt: iso(d.sentMs),
});

/** What GET /api/alerts answers. */
export async function alertsAnswer(db: Kysely<Database>): Promise<z.infer<typeof alertsAnswerSchema>> {
  const [data, digests] = await Promise.all([notificationLog(db), latestDigests(db)]);
  return { data, digests: digests.map(digestView) };
}
