import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// Consumer webhooks (lib/webhooks/): endpoints a token's owner registers to have its events pushed, each with its
// own place in the token's stream, and the log of every attempt to send to one.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('token_webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('kinds', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('cursor', 'bigint', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('head_failed_ms', 'bigint')
      .addColumn('failing_since_ms', 'bigint')
      .addColumn('next_ms', 'bigint', (c) => c.notNull())
      .addColumn('paused_reason', 'text')
      .addColumn('claim_until_ms', 'bigint')
      .addColumn('claimed_by', 'text')
      .addColumn('disabled_ms', 'bigint')
      .addColumn('disabled_reason', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_ms', 'bigint', (c) => c.notNull())
      .addColumn('updated_ms', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('token_webhooks_token').on('token_webhooks').columns(['token_id']).execute();
    await db.schema
      .createTable('token_webhook_attempts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull())
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'bigint')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('trigger', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('code', 'integer')
      .addColumn('problem', 'text')
      .addColumn('at_ms', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('token_webhook_attempts_at').on('token_webhook_attempts').columns(['webhook_id', 'at_ms']).execute();
  },
};
