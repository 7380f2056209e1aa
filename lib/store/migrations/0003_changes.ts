import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // What the change feed last saw of each record in its window (lib/changes/reconcile.ts).
    await db.schema
      .createTable('watched')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('published_at', 'text')
      .addColumn('status', 'text')
      .addColumn('result', 'text')
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('event_ms', 'bigint')
      .addColumn('display', 'text', (c) => c.notNull())
      .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('changes')
      .addColumn('seq', 'bigint', (c) => c.primaryKey())
      .addColumn('detected_at', 'text', (c) => c.notNull())
      .addColumn('pick_id', 'text', (c) => c.notNull())
      .addColumn('kinds', 'text', (c) => c.notNull())
      .addColumn('sport', 'text')
      .addColumn('league', 'text')
      .addColumn('display', 'text', (c) => c.notNull())
      .addColumn('before', 'text')
      .addColumn('after', 'text')
      .execute();
    await db.schema.createIndex('changes_detected_at').on('changes').column('detected_at').execute();
    // One row: who holds the polling lease, and how the last polls went.
    await db.schema
      .createTable('change_feed')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text')
      .addColumn('lease_expires', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('started_ms', 'bigint')
      .addColumn('outcome', 'text')
      .addColumn('error', 'text')
      .addColumn('complete_ms', 'bigint')
      .addColumn('window_from', 'text')
      .addColumn('window_to', 'text')
      .addColumn('watched', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('polls', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('polled_by', 'text')
      .addColumn('requested_ms', 'bigint')
      .execute();
    await db.insertInto('change_feed').values({ name: 'feed' }).execute();
    await db.schema
      .createTable('change_visits')
      .addColumn('email', 'text', (c) => c.primaryKey())
      .addColumn('last_ms', 'bigint', (c) => c.notNull())
      .addColumn('previous_ms', 'bigint')
      .execute();
  },
};
