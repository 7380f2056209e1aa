import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // Each person's time zone, theme and table density (lib/preferences), as JSON: followed in every browser they sign in to.
    await db.schema.alterTable('users').addColumn('preferences', 'text').execute();
  },
};
