import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// When the owner was given the token (creation or reassignment): an account added after it is not that owner.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('api_tokens').addColumn('owner_since_ms', 'bigint').execute();
  },
};
