import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// A key marked compromised: every signature by it fails, whenever it claims to have been made.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('signing_keys').addColumn('compromised_at', 'text').execute();
  },
};
