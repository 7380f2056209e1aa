import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// A record's deliveries in time order: what the overview's count of records re-settled after delivery, and
// reconciliation by record, look up from a record's newer versions instead of scanning every delivered row.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema.createIndex('delivered_versions_pick').on('delivered_versions').columns(['pick_id', 'at_ms']).execute();
  },
};
