import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // A single sign-on account is bound to its provider's subject, not matched by email alone.
    await db.schema.alterTable('users').addColumn('oidc_sub', 'text').execute();
  },
};
