import type { Migration } from 'kysely';
import type { AnyDb } from './migrations';

/** Scoped API tokens (lib/tokens): additive, so the release before it keeps working beside it (docs/operations.md#upgrades). */

export const TOKENS: Record<string, Migration> = {
  '0014_tokens': {
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
  },
  // When the owner was given the token (creation or reassignment): an account added after it is not that owner.
  '0016_token_owner_since': {
    async up(db: AnyDb) {
      await db.schema.alterTable('api_tokens').addColumn('owner_since_ms', 'bigint').execute();
    },
  },
};
