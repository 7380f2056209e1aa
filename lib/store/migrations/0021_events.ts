import type { Migration } from 'kysely';
import { sql } from 'kysely';
import type { AnyDb } from './any-db';

// The change feed as events (API v1's /api/v1/events): each entry names the record's version the poll saw
// (`digest`, null when withdrawn) and the one the feed saw before (`prev_digest`), so an event carries the record
// and its changed fields, the same bytes on every instance. The feed keeps the last number it gave (`last_seq`):
// event ids never go back, even when every entry has been pruned.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('changes').addColumn('digest', 'text').execute();
    await db.schema.alterTable('changes').addColumn('prev_digest', 'text').execute();
    await db.schema
      .alterTable('change_feed')
      .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update change_feed set last_seq = (select coalesce(max(seq), 0) from changes)`.execute(db);
  },
};
