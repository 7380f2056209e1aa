import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // How many of a delivery run's records fell outside the licence (its manifest's attestation); null: none, or not known.
    await db.schema.alterTable('delivery_runs').addColumn('outside_licence', 'bigint').execute();
  },
};
