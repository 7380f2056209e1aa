import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// What the newest audit checkpoint sealed of the tables that decide who may act and where data goes
// (lib/store/sealed-tables.ts): each row's key and hash, so a restore names the rows that differ. The checkpoint's
// signed digest of each table vouches for these rows; only the newest checkpoint's are kept.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('audit_sealed_rows')
      .addColumn('checkpoint_id', 'bigint', (c) => c.notNull())
      .addColumn('table_name', 'text', (c) => c.notNull())
      .addColumn('row_key', 'text', (c) => c.notNull())
      .addColumn('row_hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('audit_sealed_rows_pk', ['table_name', 'row_key'])
      .execute();
  },
};
