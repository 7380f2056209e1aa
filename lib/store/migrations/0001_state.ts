import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('users')
      .addColumn('email', 'text', (c) => c.primaryKey())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('demo', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_sign_in_at', 'text')
      .execute();
    await db.schema
      .createTable('revoked_sessions')
      .addColumn('sid', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('walk_slots')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('instance', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('walk_slots_owner').on('walk_slots').column('owner').execute();
    await db.schema
      .createTable('locks')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.insertInto('locks').values({ name: 'walks', version: 0 }).execute();
    await db.schema
      .createTable('upstream_pause')
      .addColumn('scope', 'text', (c) => c.primaryKey())
      .addColumn('resume_at', 'bigint', (c) => c.notNull())
      .execute();
    // rate-limiter-flexible's table, made here (its own creation races between instances starting together).
    await db.schema
      .createTable('rate_limits')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expire', 'bigint')
      .execute();
    await db.schema
      .createTable('meta')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
};
