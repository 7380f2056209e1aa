import type { Migration } from 'kysely';
import type { AnyDb } from './migrations';

/** The proofs' migration (lib/proof): additive, so the release before it keeps working beside it (docs/operations.md#upgrades). */

export const PROOF: Record<string, Migration> = {
  '0011_proof': {
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
  },
  '0012_run_licence': {
    async up(db: AnyDb) {
      // How many of a delivery run's records fell outside the licence (its manifest's attestation); null: none, or not known.
      await db.schema.alterTable('delivery_runs').addColumn('outside_licence', 'bigint').execute();
    },
  },
  // A key marked compromised: every signature by it fails, whenever it claims to have been made.
  '0017_key_compromised': {
    async up(db: AnyDb) {
      await db.schema.alterTable('signing_keys').addColumn('compromised_at', 'text').execute();
    },
  },
};
