import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // What a walk saw while the upstream moved (lib/picks-api/settle.ts): on the export's or run's audit entry, and the feed's.
    await db.schema.alterTable('audit_log').addColumn('walk', 'text').execute();
    await db.schema.alterTable('change_feed').addColumn('walk', 'text').execute();
  },
};
