import type { Migration } from 'kysely';
import type { AnyDb } from './any-db';

export const migration: Migration = {
  async up(db: AnyDb) {
    // The public keys manifests and checkpoints were signed with, published as a JWK Set; retired ones stay.
    await db.schema
      .createTable('signing_keys')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      .addColumn('jwk', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('retired_at', 'text')
      .execute();
    // The audit trail's signed checkpoints: each seals the chain up to an entry and names the one before.
    await db.schema
      .createTable('audit_checkpoints')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('head_seq', 'bigint', (c) => c.notNull())
      .addColumn('head_hash', 'text', (c) => c.notNull())
      .addColumn('jws', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .execute();
    // A delivery's recipient key (armoured OpenPGP public key) and its fingerprint: its files are placed encrypted.
    await db.schema.alterTable('deliveries').addColumn('encrypt_to', 'text').execute();
    await db.schema.alterTable('deliveries').addColumn('encrypt_fingerprint', 'text').execute();
    // Serialises key registration (a new key retires the others) and the making of checkpoints.
    await db.insertInto('locks').values({ name: 'signing-keys', version: 0 }).execute();
    await db.insertInto('locks').values({ name: 'checkpoints', version: 0 }).execute();
  },
};
