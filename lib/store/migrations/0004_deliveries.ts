import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('filters', 'text', (c) => c.notNull())
      .addColumn('schedule', 'text', (c) => c.notNull())
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('secret', 'text')
      .addColumn('host_key', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('pause_reason', 'text')
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_due_ms', 'bigint', (c) => c.notNull())
      .addColumn('changes_until', 'text')
      .execute();
    await db.schema
      .createTable('delivery_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('due_ms', 'bigint')
      .addColumn('trigger', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('instance', 'text', (c) => c.notNull())
      .addColumn('lease_expires', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('started_ms', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('records', 'bigint')
      .addColumn('bytes', 'bigint')
      .addColumn('sha256', 'text')
      .addColumn('file', 'text')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'bigint')
      .execute();
    // Once per due time across instances: whoever inserts the run for (delivery, due time, attempt) runs it.
    await db.schema.createIndex('delivery_runs_due').on('delivery_runs').columns(['delivery_id', 'due_ms', 'attempt']).unique().execute();
    await db.schema.createIndex('delivery_runs_started').on('delivery_runs').columns(['delivery_id', 'started_ms']).execute();
  },
};
