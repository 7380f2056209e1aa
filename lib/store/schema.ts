import type { Generated } from 'kysely';

/**
 * The portal's tables, as both engines hold them. Times that are compared are milliseconds since the
 * epoch (bigint); times that are shown are UTC ISO 8601 text. Flags are 0/1 integers (SQLite has no boolean).
 */

export interface UsersTable {
  email: string;
  role: string;
  password_hash: string;
  created_at: string;
  demo: number;
  disabled: number;
  last_sign_in_at: string | null;
}

export interface RevokedSessionsTable {
  sid: string;
  expires_at: number;
}

/** One row per running export or coverage walk, held as a lease so a crashed instance's slots run out. */
export interface WalkSlotsTable {
  id: string;
  owner: string;
  instance: string;
  expires_at: number;
}

/** Rows updated first in a transaction to serialise it across instances (walk slots). */
export interface LocksTable {
  name: string;
  version: Generated<number>;
}

/** The upstream's Retry-After, shared: no instance asks before resume_at. */
export interface UpstreamPauseTable {
  scope: string;
  resume_at: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

/** Kept by rate-limiter-flexible (lib/store/rate-limits.ts); created by our migration. */
export interface RateLimitsTable {
  key: string;
  points: number;
  expire: number | null;
}

/** Append-only and hash-chained (lib/store/audit.ts): each row holds the hash of the one before. */
export interface AuditLogTable {
  seq: number;
  at: string;
  actor: string;
  role: string | null;
  action: string;
  target: string | null;
  /** JSON of the filters as sent. */
  filters: string | null;
  outcome: string;
  error_code: string | null;
  records: number | null;
  bytes: number | null;
  sha256: string | null;
  duration_ms: number | null;
  /** JSON list of the upstream requestIds involved. */
  request_ids: string;
  address: string | null;
  /** The licence reference /me gave when an export started. */
  licence: string | null;
  prev_hash: string;
  hash: string;
}

export interface Database {
  users: UsersTable;
  revoked_sessions: RevokedSessionsTable;
  walk_slots: WalkSlotsTable;
  locks: LocksTable;
  upstream_pause: UpstreamPauseTable;
  meta: MetaTable;
  rate_limits: RateLimitsTable;
  audit_log: AuditLogTable;
}
