import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('expires_ms', 'bigint', (c) => c.notNull())
      .addColumn('rate_per_minute', 'integer', (c) => c.notNull())
      .addColumn('daily_records', 'integer', (c) => c.notNull())
      .addColumn('created_ms', 'bigint', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('updated_ms', 'bigint', (c) => c.notNull())
      .addColumn('revoked_ms', 'bigint')
      .addColumn('revoked_by', 'text')
      .execute();
    await db.schema.createIndex('api_tokens_owner').on('api_tokens').column('owner').execute();
    await db.schema
      .createTable('token_usage')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('records', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('client_errors', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('throttled', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_ms', 'bigint', (c) => c.notNull())
      .addColumn('last_address', 'text')
      .addPrimaryKeyConstraint('token_usage_pk', ['token_id', 'day'])
      .execute();
  },
};
