/** Scoped API tokens for the partner's own systems (lib/tokens/), part of the store's Database (./schema.ts). */

export interface ApiTokensTable {
  /** tok_ + 12 hex. */
  id: string;
  name: string;
  /** Whose token it is: the person who may see and change it besides admins. */
  owner: string;
  /** When the owner was given the token (null: at creation, before migration 0016). */
  owner_since_ms: number | null;
  /** sha256 (hex) of the token: tokens are 256 random bits, so a fast hash is right; the token itself is never kept. */
  hash: string;
  /** The token's first characters, to recognise it in a list. */
  prefix: string;
  /** JSON: { content, sports, leagues, from, to } (lib/tokens/scope.ts). */
  scope: string;
  expires_ms: number;
  rate_per_minute: number;
  daily_records: number;
  created_ms: number;
  created_by: string;
  updated_ms: number;
  revoked_ms: number | null;
  revoked_by: string | null;
  /** The secret it was rolled from (sha256, hex), working until prev_until_ms; null: none. */
  prev_hash: string | null;
  prev_prefix: string | null;
  prev_until_ms: number | null;
  /** When its secret was last rolled. */
  rolled_ms: number | null;
}

/** A token's use on one UTC day, summed by every instance. */
export interface TokenUsageTable {
  token_id: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  requests: number;
  records: number;
  bytes: number;
  /** Answers 400–499 other than 429. */
  client_errors: number;
  throttled: number;
  last_ms: number;
  last_address: string | null;
}

/** A consumer webhook (0023): where a token's events are pushed, and where in the token's stream it stands. */
export interface TokenWebhooksTable {
  /** twh_ + 12 hex. */
  id: string;
  token_id: string;
  /** Sealed at rest, bound to this endpoint (./at-rest.ts). */
  url: string;
  /** JSON: the event types it receives. */
  kinds: string;
  /** The Standard Webhooks secret, sealed (lib/deliveries/secrets.ts), bound to this endpoint and its URL. */
  secret: string;
  /** The last event number it was given (or passed over, or given up on): it is sent what comes after. */
  cursor: number;
  /** Attempts at the event after the cursor so far. */
  attempts: number;
  /** When the first attempt at the event after the cursor failed (null: none failed). */
  head_failed_ms: number | null;
  /** Since when every attempt failed (null: the last one was accepted). */
  failing_since_ms: number | null;
  /** Not tried again before. */
  next_ms: number;
  /** Why it waits without having failed (its token over today's quota); null otherwise. */
  paused_reason: string | null;
  /** One instance sends to an endpoint at a time: its claim, until then. */
  claim_until_ms: number | null;
  claimed_by: string | null;
  disabled_ms: number | null;
  disabled_reason: string | null;
  created_by: string;
  created_ms: number;
  updated_ms: number;
  /** Who last confirmed it (null: its maker, at making) and when: it sends for its token's owner only (lib/webhooks/confirm.ts). */
  confirmed_by: string | null;
  confirmed_ms: number | null;
}

/** One attempt to send to a consumer webhook: an event, a resend or a test. */
export interface TokenWebhookAttemptsTable {
  id: string;
  webhook_id: string;
  /** The `webhook-id` header: the same for every attempt at one event. */
  message_id: string;
  seq: number | null;
  type: string;
  /** 'delivery' | 'resend' | 'test' */
  trigger: string;
  /** 'delivered' | 'failed' | 'gave up' */
  outcome: string;
  code: number | null;
  problem: string | null;
  at_ms: number;
  duration_ms: number;
  /** JSON: the headers sent (the signature, never the secret). Null for attempts logged before 0028. */
  request_headers: string | null;
  /** The body sent, its first 64 KB. */
  request_body: string | null;
  request_bytes: number | null;
  /** JSON: the answer's headers (null: no answer). */
  response_headers: string | null;
  /** The answer's body, its first 4 KB. */
  response_body: string | null;
  response_bytes: number | null;
}

/** One request of an API token (lib/tokens/request-log.ts), kept TOKEN_REQUESTS_DAYS. */
export interface TokenRequestsTable {
  token_id: string;
  at_ms: number;
  method: string;
  /** Path and query as asked, its first 2,000 characters. */
  path: string;
  status: number;
  records: number;
  duration_ms: number;
  request_id: string;
  /** The prefix of the secret it came with (a rolled token has two for a while). */
  prefix: string | null;
}
