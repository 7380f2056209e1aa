import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

// Signed checkpoints of each token's event stream (lib/events/checkpoints.ts): every 1,000 of its events and
// hourly, the portal signs how many events it gave the token up to a number and the last one's hash, and keeps it.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('event_checkpoints')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('to_seq', 'bigint', (c) => c.notNull())
      .addColumn('from_seq', 'bigint', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('last_hash', 'text')
      .addColumn('jws', 'text', (c) => c.notNull())
      .addColumn('at_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('event_checkpoints_pk', ['token_id', 'to_seq'])
      .execute();
  },
};
