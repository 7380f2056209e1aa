import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// Who last confirmed a consumer webhook, and when: a webhook sends only while its token's owner confirmed it, or
// while whoever did may still act and the token has not changed hands since. Null: confirmed by its maker at making.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('token_webhooks').addColumn('confirmed_by', 'text').execute();
    await db.schema.alterTable('token_webhooks').addColumn('confirmed_ms', 'bigint').execute();
  },
};
