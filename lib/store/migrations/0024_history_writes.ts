import { sql, type Migration } from 'kysely';
import type { AnyDb } from './any-db';

// A table delivery's run says what it did to the table: `{mode, inserted, updated, marked}` as JSON.
// Which write of the record history last moved each head: the history lock's number, taken by every writer under
// the lock, so "every head moved after write N" is exact however late a sighting's own time is (a table delivery
// reads its changes so, lib/deliveries/table-run.ts). Heads written before this are write 0.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('record_heads').addColumn('written', 'bigint').execute();
    await sql`update record_heads set written = 0`.execute(db);
    await db.schema.alterTable('delivery_runs').addColumn('table_counts', 'text').execute();
    await db.schema.createIndex('record_heads_written').on('record_heads').columns(['written', 'pick_id']).execute();
  },
};
