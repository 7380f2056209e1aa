/** The proofs' tables (lib/proof/), part of the store's Database (./schema.ts). */

/** Every public key the portal has signed with (the private halves live in files only). retired_at: when a newer key took over. */
export interface SigningKeysTable {
  kid: string;
  /** The public JWK as JSON. */
  jwk: string;
  created_at: string;
  retired_at: string | null;
  /** When an operator marked it compromised (npm run proof -- compromised <kid>); null: never. */
  compromised_at: string | null;
}

/** The audit trail's signed checkpoints (lib/proof/checkpoints.ts), also appended to AUDIT_CHECKPOINT_FILE. */
export interface AuditCheckpointsTable {
  /** 1, 2, 3…: the checkpoint's number. */
  id: number;
  /** The newest entry it seals. */
  head_seq: number;
  head_hash: string;
  /** The compact JWS; its payload is the checkpoint as canonical JSON. */
  jws: string;
  /** sha256 of the payload: the next checkpoint names it. */
  hash: string;
  at: string;
}

/** The newest audit checkpoint's row hashes of the sealed tables (0026, lib/store/sealed-tables.ts). */
export interface AuditSealedRowsTable {
  checkpoint_id: number;
  table_name: string;
  row_key: string;
  row_hash: string;
}
