import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // Every distinct content of a record, once: the canonical body (keys sorted, null members left out) and the
    // fields the point-in-time filters read, taken from it.
    await db.schema
      .createTable('record_bodies')
      .addColumn('digest', 'text', (c) => c.primaryKey())
      .addColumn('pick_id', 'text', (c) => c.notNull())
      .addColumn('sport', 'text')
      .addColumn('league', 'text')
      .addColumn('status', 'text')
      .addColumn('result', 'text')
      .addColumn('event_ms', 'bigint')
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('first_ms', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('record_bodies_pick').on('record_bodies').column('pick_id').execute();
    // A record's versions in the order they were seen: a new row whenever what is seen differs from the one
    // before. digest null: seen withdrawn (absent from a complete poll while its event date was in the window).
    await db.schema
      .createTable('record_versions')
      .addColumn('pick_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('digest', 'text')
      .addColumn('first_ms', 'bigint', (c) => c.notNull())
      .addColumn('first_by', 'text', (c) => c.notNull())
      .addColumn('last_ms', 'bigint', (c) => c.notNull())
      .addColumn('last_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('record_versions_pk', ['pick_id', 'seq'])
      .execute();
    await db.schema.createIndex('record_versions_first').on('record_versions').column('first_ms').execute();
    await db.schema.createIndex('record_versions_digest').on('record_versions').column('digest').execute();
    // Each record's newest version, and when and by what it was last seen (updated on every sighting; the
    // version's own row gets its last sighting when a newer one replaces it).
    await db.schema
      .createTable('record_heads')
      .addColumn('pick_id', 'text', (c) => c.primaryKey())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('digest', 'text')
      .addColumn('last_ms', 'bigint', (c) => c.notNull())
      .addColumn('last_by', 'text', (c) => c.notNull())
      .execute();
    // Which version of each record an export or a delivery run delivered: what reconciliation compares.
    await db.schema
      .createTable('delivered_versions')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('pick_id', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('at_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('delivered_versions_pk', ['source', 'pick_id'])
      .execute();
    await db.schema.createIndex('delivered_versions_at').on('delivered_versions').column('at_ms').execute();
    await db.schema.createIndex('delivered_versions_digest').on('delivered_versions').column('digest').execute();
    // Every file whose records are kept for reconciliation: an export (its X-Export-Id, and its audit entry once
    // written) or a delivery run; `kept`: pending (being read back), kept, failed (with why), none (it did not complete).
    await db.schema
      .createTable('delivered_files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('audit_seq', 'bigint')
      .addColumn('delivery_id', 'text')
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('at_ms', 'bigint', (c) => c.notNull())
      .addColumn('records', 'bigint')
      .addColumn('kept', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .execute();
    await db.schema.createIndex('delivered_files_seq').on('delivered_files').column('audit_seq').execute();
    await db.schema.createIndex('delivered_files_delivery').on('delivered_files').columns(['delivery_id', 'at_ms']).execute();
    // Per delivery, the version of each record its destination holds now (its runs and corrections, newest
    // last; digest '' for a record it was told is withdrawn): what automatic corrections compare.
    await db.schema
      .createTable('delivered_state')
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('pick_id', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('at_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('delivered_state_pk', ['delivery_id', 'pick_id'])
      .execute();
    // A delivery that sends corrections to the same destination after each poll that changes what it delivered.
    await db.schema
      .alterTable('deliveries')
      .addColumn('corrections', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // Serialises the writing of versions by the poller, exports and deliveries of every instance.
    await db.insertInto('locks').values({ name: 'history', version: 0 }).execute();
  },
};
