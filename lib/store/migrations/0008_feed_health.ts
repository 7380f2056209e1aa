import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
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
};
