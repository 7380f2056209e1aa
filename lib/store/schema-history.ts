/** Record history's tables (lib/history/), part of the store's Database (./schema.ts). */

/** Every distinct content of a record, stored once; `digest` is sha256 (base64url) of `body`. */
export interface RecordBodiesTable {
  digest: string;
  pick_id: string;
  sport: string | null;
  league: string | null;
  status: string | null;
  result: string | null;
  event_ms: number | null;
  /** The record as canonical JSON: keys sorted at every depth, null members left out (null and absent are one: spec §9). */
  body: string;
  first_ms: number;
}

/** A record's versions in the order seen; digest null marks a withdrawal. */
export interface RecordVersionsTable {
  pick_id: string;
  seq: number;
  digest: string | null;
  first_ms: number;
  first_by: string;
  last_ms: number;
  last_by: string;
}

/** Each record's newest version and its latest sighting. */
export interface RecordHeadsTable {
  pick_id: string;
  seq: number;
  digest: string | null;
  last_ms: number;
  last_by: string;
  /** When version `first_seq` was first seen: the head's own version when `first_seq` = `seq` (0015). */
  first_ms: number | null;
  first_seq: number | null;
  /** The history's write that last moved the head (the `history` lock's number; 0024): what changed after write N. */
  written: number | null;
}

/** The version of each record an export (its audit seq) or a delivery run (its id) delivered. */
export interface DeliveredVersionsTable {
  source: string;
  pick_id: string;
  digest: string;
  at_ms: number;
}

/** Per delivery, the version of each record its destination holds ('' : told it was withdrawn). */
export interface DeliveredStateTable {
  delivery_id: string;
  pick_id: string;
  digest: string;
  source: string;
  at_ms: number;
}

/** A file whose records are kept for reconciliation: an export (`exp_…`) or a delivery run (`run_…`). */
export interface DeliveredFilesTable {
  id: string;
  kind: string;
  audit_seq: number | null;
  delivery_id: string | null;
  actor: string;
  at_ms: number;
  records: number | null;
  /** pending | kept | failed | none */
  kept: string;
  error: string | null;
}

/** The index of the licensed set (0027, ./record-index.ts): each record's newest version, as search reads it. */
export interface RecordIndexTable {
  pick_id: string;
  digest: string;
  sport: string | null;
  league: string | null;
  status: string | null;
  result: string | null;
  event_ms: number | null;
  published_ms: number | null;
  settled_ms: number | null;
  odds: number | null;
  probability: number | null;
  /** The words people search by, case and accents folded (./record-index.ts `foldWords`). */
  words: string;
}
