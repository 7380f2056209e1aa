import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
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
};
