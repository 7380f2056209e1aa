import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
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
};
