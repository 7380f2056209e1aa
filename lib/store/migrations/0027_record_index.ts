import { sql, SqliteAdapter, type Migration } from 'kysely';
import type { AnyDb } from './any-db';

// The partner's own index of the licensed set (lib/store/record-index.ts): each record's newest version the portal
// saw, one row a record, with the fields its search sorts and filters by and its words folded for search. On the
// embedded database a contentless FTS5 table of trigrams finds words and parts of words; on PostgreSQL a pg_trgm index over
// the same folded words does (pg_trgm is a trusted extension: a database owner may create it).
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('record_index')
      .addColumn('pick_id', 'text', (c) => c.primaryKey())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('sport', 'text')
      .addColumn('league', 'text')
      .addColumn('status', 'text')
      .addColumn('result', 'text')
      .addColumn('event_ms', 'bigint')
      .addColumn('published_ms', 'bigint')
      .addColumn('settled_ms', 'bigint')
      .addColumn('odds', 'double precision')
      .addColumn('probability', 'double precision')
      .addColumn('words', 'text', (c) => c.notNull())
      .execute();
    for (const column of ['event_ms', 'published_ms', 'odds', 'probability'])
      await db.schema.createIndex(`record_index_${column}`).on('record_index').columns([column, 'pick_id']).execute();
    await db.schema.createIndex('record_index_sport_league').on('record_index').columns(['sport', 'league']).execute();
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      // Contentless, its rowid the index row's: a match answers rowids without reading any text back.
      await sql`create virtual table record_words using fts5(words, content = '', contentless_delete = 1, tokenize = 'trigram')`.execute(
        db,
      );
    } else {
      await sql`create extension if not exists pg_trgm`.execute(db);
      await sql`create index record_index_words on record_index using gin (words gin_trgm_ops)`.execute(db);
    }
  },
};
