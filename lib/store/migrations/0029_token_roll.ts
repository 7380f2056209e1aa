import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// Rolling a token's secret: the one it was rolled from keeps working until prev_until_ms (an overlap its owner
// picks, up to 7 days), found by its own hash; each logged request names the secret's prefix it came with, so the
// token page shows each secret's last use.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('api_tokens').addColumn('prev_hash', 'text').execute();
    await db.schema.alterTable('api_tokens').addColumn('prev_prefix', 'text').execute();
    await db.schema.alterTable('api_tokens').addColumn('prev_until_ms', 'bigint').execute();
    await db.schema.alterTable('api_tokens').addColumn('rolled_ms', 'bigint').execute();
    await db.schema.createIndex('api_tokens_prev_hash').on('api_tokens').columns(['prev_hash']).execute();
    await db.schema.alterTable('token_requests').addColumn('prefix', 'text').execute();
    await db.schema.createIndex('token_requests_prefix').on('token_requests').columns(['token_id', 'prefix', 'at_ms']).execute();
  },
};
