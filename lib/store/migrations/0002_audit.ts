import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('audit_log')
      .addColumn('seq', 'bigint', (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('role', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target', 'text')
      .addColumn('filters', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('error_code', 'text')
      .addColumn('records', 'bigint')
      .addColumn('bytes', 'bigint')
      .addColumn('sha256', 'text')
      .addColumn('duration_ms', 'bigint')
      .addColumn('request_ids', 'text', (c) => c.notNull())
      .addColumn('address', 'text')
      .addColumn('licence', 'text')
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
    await db.schema.createIndex('audit_log_actor_action').on('audit_log').columns(['actor', 'action']).execute();
    await db.insertInto('locks').values({ name: 'audit', version: 0 }).execute();
    await db.insertInto('locks').values({ name: 'users', version: 0 }).execute();
  },
};
