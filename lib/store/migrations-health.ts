import type { Migration } from 'kysely';
import type { AnyDb } from './migrations';

/** The migrations of the third wave (preferences, feed health, alerts and their channels), after lib/store/migrations.ts's first six. */

export const EVERYDAY_AND_HEALTH: Record<string, Migration> = {
  '0007_preferences': {
    async up(db: AnyDb) {
      // Each person's time zone, theme and table density (lib/preferences), as JSON: followed in every browser they sign in to.
      await db.schema.alterTable('users').addColumn('preferences', 'text').execute();
    },
  },
  '0008_feed_health': {
    async up(db: AnyDb) {
      // Every poll's outcome (lib/feed-health): failures in a row, the share throttled. Kept a week.
      await db.schema
        .createTable('feed_polls')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('code', 'text')
        .execute();
      await db.schema.createIndex('feed_polls_at').on('feed_polls').column('at_ms').execute();
      // Each sport's state whenever it changed: the current one is the latest; the timeline is the last week's.
      await db.schema
        .createTable('feed_health_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('sport', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('side', 'text')
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('feed_health_log_sport_at').on('feed_health_log').columns(['sport', 'at_ms']).execute();
      // The refresh cadence agreed with the provider, per sport (the spec promises none).
      await db.schema
        .createTable('feed_cadences')
        .addColumn('sport', 'text', (c) => c.primaryKey())
        .addColumn('seconds', 'bigint', (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // The licensed scope read from /me whenever it changed: sports, leagues, window, mode, channels, before and after.
      await db.schema
        .createTable('licence_changes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .addColumn('before', 'text', (c) => c.notNull())
        .addColumn('after', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0009_alerts': {
    async up(db: AnyDb) {
      // The notification log (lib/alerts): each alert, held until its state has lasted, then sent, dropped or failed.
      await db.schema
        .createTable('alerts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('sport', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('side', 'text')
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('due_ms', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_ms', 'bigint')
        .addColumn('error', 'text')
        .addColumn('sent_ms', 'bigint')
        .addColumn('recipients', 'text')
        .execute();
      await db.schema.createIndex('alerts_status_due').on('alerts').columns(['status', 'due_ms']).execute();
      // Which alerts each person receives by email (none stored: their role's default, lib/alerts/subscriptions.ts).
      await db.schema
        .createTable('alert_subscriptions')
        .addColumn('email', 'text', (c) => c.primaryKey())
        .addColumn('kinds', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0010_alert_channels': {
    async up(db: AnyDb) {
      // Each poll's count of upstream answers by outcome (ok, 401, 403, 429, 5xx, time-out, network), as JSON.
      await db.schema.alterTable('feed_polls').addColumn('answers', 'text').execute();
      // Each person's way of receiving their alert emails: 'each' (as they happen) or 'digest' (one a day).
      await db.schema.alterTable('alert_subscriptions').addColumn('delivery', 'text').execute();
      // Shared webhooks (lib/alerts/webhooks.ts), set by admins: the kinds they receive, the payload, the secret sealed.
      await db.schema
        .createTable('alert_webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('kinds', 'text', (c) => c.notNull())
        .addColumn('secret', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // One alert's send to one webhook: claimed, retried and kept apart from the email, so one failing target blocks nothing.
      await db.schema
        .createTable('alert_sends')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('alert_id', 'text', (c) => c.notNull())
        .addColumn('webhook_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_ms', 'bigint')
        .addColumn('error', 'text')
        .addColumn('sent_ms', 'bigint')
        .execute();
      await db.schema.createIndex('alert_sends_status').on('alert_sends').columns(['status', 'next_ms']).execute();
      await db.schema.createIndex('alert_sends_alert').on('alert_sends').column('alert_id').execute();
      // Each person's daily digest, one row a day: the claim that sends it once, its attempts and outcome.
      await db.schema
        .createTable('alert_digests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('alerts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_ms', 'bigint')
        .addColumn('error', 'text')
        .addColumn('sent_ms', 'bigint')
        .execute();
      // The watchdog's lock: instances judging "nobody polls" log that change of state once between them.
      await db.insertInto('locks').values({ name: 'watchdog', version: 0 }).execute();
    },
  },
};
