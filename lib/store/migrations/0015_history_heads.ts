import { sql, type Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // A record's head names when its newest version was first seen, so the set at a moment reads one table for
    // most records instead of joining their versions. `first_seq` is the version `first_ms` belongs to: a
    // release before this one moves `seq` without it, and a head whose two differ is read from its versions.
    await db.schema.alterTable('record_heads').addColumn('first_ms', 'bigint').execute();
    await db.schema.alterTable('record_heads').addColumn('first_seq', 'integer').execute();
    // Under the history lock, so no writer of a release before this one moves a head half-way through.
    await sql`update locks set version = version + 1 where name = 'history'`.execute(db);
    await sql`update record_heads set first_seq = seq, first_ms = (select v.first_ms from record_versions v where v.pick_id = record_heads.pick_id and v.seq = record_heads.seq)`.execute(
      db,
    );
  },
};
