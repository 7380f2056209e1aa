import type { Generated } from 'kysely';

/** The alerts' tables (lib/alerts/), part of the store's Database (./schema.ts). */

/** lib/alerts: the notification log. status: held (waiting out ALERT_HOLD_SECONDS), pending, sending, sent, dropped, failed. */
export interface AlertsTable {
  id: string;
  kind: string;
  sport: string;
  state: string;
  side: string | null;
  reason: string;
  detail: string | null;
  created_ms: number;
  due_ms: number;
  status: string;
  attempts: Generated<number>;
  next_ms: number | null;
  error: string | null;
  sent_ms: number | null;
  recipients: string | null;
}

export interface AlertSubscriptionsTable {
  email: string;
  /** JSON array of alert kinds (lib/alerts/subscriptions.ts ALERT_KINDS). */
  kinds: string;
  updated_at: string;
  /** 'each' (null before 0010) or 'digest': the chosen kinds as they happen, or in one email a day. */
  delivery?: string | null;
}

/** lib/alerts/webhooks.ts: shared webhooks set by admins; `kinds` JSON, `secret` sealed (lib/deliveries/secrets.ts). */
export interface AlertWebhooksTable {
  id: string;
  name: string;
  url: string;
  /** 'signed' (the portal's JSON) or 'chat' ({"text"}: what a chat tool's incoming webhook takes). */
  format: string;
  kinds: string;
  secret: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One alert's send to one webhook. status: pending, sending (claimed until next_ms), sent, failed. */
export interface AlertSendsTable {
  id: string;
  alert_id: string;
  webhook_id: string;
  kind: string;
  status: string;
  attempts: Generated<number>;
  next_ms: number | null;
  error: string | null;
  sent_ms: number | null;
}

/** One person's daily digest for one UTC day. status: sending (claimed until next_ms), pending (a retry), sent, failed. */
export interface AlertDigestsTable {
  id: string;
  email: string;
  day: string;
  alerts: Generated<number>;
  status: string;
  attempts: Generated<number>;
  next_ms: number | null;
  error: string | null;
  sent_ms: number | null;
}
