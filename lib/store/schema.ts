import type { Generated } from 'kysely';
import type { AuditCheckpointsTable, AuditSealedRowsTable, SigningKeysTable } from './schema-proof';
import type { JobLeasesTable, JobRunsTable } from './schema-jobs';
import type {
  DeliveredFilesTable,
  DeliveredStateTable,
  DeliveredVersionsTable,
  RecordBodiesTable,
  RecordHeadsTable,
  RecordIndexTable,
  RecordVersionsTable,
} from './schema-history';
import type { ApiTokensTable, TokenUsageTable, TokenWebhookAttemptsTable, TokenWebhooksTable, TokenRequestsTable } from './schema-tokens';
import type { AlertDigestsTable, AlertSendsTable, AlertsTable, AlertSubscriptionsTable, AlertWebhooksTable } from './schema-alerts';

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
  session_epoch: Generated<number>;
  provider: Generated<string>;
  /** JSON (lib/preferences): time zone, theme, density; null until the person chooses one. */
  preferences: string | null;
  /** A single sign-on account's subject at its identity provider (bound at its first sign-on); null otherwise. */
  oidc_sub: Generated<string | null>;
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
  /** What the walk saw while the upstream moved (JSON of WalkSummary); null before 0006 and for entries without a walk. */
  walk?: string | null;
  prev_hash: string;
  hash: string;
}

/** The change feed's memory of one record (lib/changes): enough to compare, and to show it once it is gone. */
export interface WatchedTable {
  id: string;
  published_at: string | null;
  status: string | null;
  result: string | null;
  digest: string;
  event_ms: number | null;
  /** JSON of the record's display fields. */
  display: string;
  /** 1 once it is no longer delivered (kept while its event date is in the window, so a return is seen). */
  withdrawn: number;
}

/** One entry per record and poll that changed something; `kinds` space-separated, before/after JSON. */
export interface ChangesTable {
  seq: number;
  detected_at: string;
  pick_id: string;
  kinds: string;
  sport: string | null;
  league: string | null;
  display: string;
  before: string | null;
  after: string | null;
  /** The record's version the poll saw (record_bodies), null when withdrawn or written before 0021. */
  digest: string | null;
  /** The version the feed saw at its poll before, when the record changed (its changed fields are the difference). */
  prev_digest: string | null;
}

/** One row ('feed'): the polling lease and the last polls' outcome. */
export interface ChangeFeedTable {
  name: string;
  holder: string | null;
  lease_expires: Generated<number>;
  started_ms: number | null;
  outcome: string | null;
  error: string | null;
  complete_ms: number | null;
  window_from: string | null;
  window_to: string | null;
  watched: Generated<number>;
  requests: Generated<number>;
  polls: Generated<number>;
  polled_by: string | null;
  /** The last entry number given: numbers never go back, even when every entry has been pruned (0021). */
  last_seq: Generated<number>;
  /** An admin asked for a poll now ("Poll now"); the holder polls at its next check if this is after started_ms. */
  requested_ms: number | null;
  /** The last complete poll's walk, in words, when the upstream moved under it. */
  walk?: string | null;
}

/** lib/feed-health: each poll's outcome, each sport's state changes, the agreed cadences. */
export interface FeedPollsTable {
  id: string;
  at_ms: number;
  outcome: string;
  code: string | null;
  /** JSON: the poll's upstream answers by outcome (lib/feed-health/compute.ts UpstreamAnswers); null before 0010. */
  answers?: string | null;
}

export interface FeedHealthLogTable {
  id: string;
  sport: string;
  state: string;
  side: string | null;
  reason: string;
  at_ms: number;
}

export interface LicenceChangesTable {
  id: string;
  at_ms: number;
  /** JSON of the scope (lib/feed-health/compute.ts LicenceScope). */
  before: string;
  after: string;
}

export interface FeedCadencesTable {
  sport: string;
  seconds: number;
  updated_by: string;
  updated_at: string;
}

/** When each person last opened /changes, and the visit before (for "since my last visit"). */
export interface ChangeVisitsTable {
  email: string;
  last_ms: number;
  previous_ms: number | null;
}

/** A scheduled delivery (lib/deliveries); filters and destination as JSON, the secret sealed. */
export interface DeliveriesTable {
  id: string;
  name: string;
  kind: string;
  format: string;
  filters: string;
  schedule: string;
  destination: string;
  secret: string | null;
  host_key: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  paused: number;
  pause_reason: string | null;
  failures: number;
  last_due_ms: number;
  changes_until: string | null;
  /** 0011: the recipient's armoured OpenPGP public key and its fingerprint (lib/deliveries/encryption.ts). */
  encrypt_to?: string | null;
  encrypt_fingerprint?: string | null;
  /** 0013: send corrections after each poll that changes what it delivered (lib/history/corrections.ts). */
  corrections?: number;
}

/** One run of a delivery; unique per (delivery, due time, attempt). */
export interface DeliveryRunsTable {
  id: string;
  delivery_id: string;
  due_ms: number | null;
  trigger: string;
  attempt: number;
  instance: string;
  lease_expires: number;
  started_at: string;
  started_ms: number;
  finished_at: string | null;
  outcome: string;
  records: number | null;
  bytes: number | null;
  sha256: string | null;
  file: string | null;
  error: string | null;
  duration_ms: number | null;
  outside_licence: number | null;
  /** A table delivery's run: `{mode, inserted, updated, marked}` as JSON (0024). */
  table_counts: string | null;
}

export interface Database {
  users: UsersTable;
  feed_polls: FeedPollsTable;
  feed_health_log: FeedHealthLogTable;
  feed_cadences: FeedCadencesTable;
  licence_changes: LicenceChangesTable;
  alerts: AlertsTable;
  alert_subscriptions: AlertSubscriptionsTable;
  alert_webhooks: AlertWebhooksTable;
  alert_sends: AlertSendsTable;
  alert_digests: AlertDigestsTable;
  revoked_sessions: RevokedSessionsTable;
  walk_slots: WalkSlotsTable;
  locks: LocksTable;
  upstream_pause: UpstreamPauseTable;
  meta: MetaTable;
  rate_limits: RateLimitsTable;
  audit_log: AuditLogTable;
  watched: WatchedTable;
  changes: ChangesTable;
  change_feed: ChangeFeedTable;
  change_visits: ChangeVisitsTable;
  deliveries: DeliveriesTable;
  delivery_runs: DeliveryRunsTable;
  signing_keys: SigningKeysTable;
  audit_checkpoints: AuditCheckpointsTable;
  audit_sealed_rows: AuditSealedRowsTable;
  record_bodies: RecordBodiesTable;
  record_versions: RecordVersionsTable;
  record_heads: RecordHeadsTable;
  record_index: RecordIndexTable;
  delivered_versions: DeliveredVersionsTable;
  delivered_files: DeliveredFilesTable;
  delivered_state: DeliveredStateTable;
  api_tokens: ApiTokensTable;
  token_usage: TokenUsageTable;
  job_runs: JobRunsTable;
  job_leases: JobLeasesTable;
  event_checkpoints: EventCheckpointsTable;
  token_webhooks: TokenWebhooksTable;
  token_webhook_attempts: TokenWebhookAttemptsTable;
  token_requests: TokenRequestsTable;
}

/** A signed checkpoint of a token's event stream (0022): its events from `from_seq` to `to_seq`, how many, the last hash. */
export interface EventCheckpointsTable {
  token_id: string;
  to_seq: number;
  from_seq: number;
  count: number;
  last_hash: string | null;
  jws: string;
  at_ms: number;
}
