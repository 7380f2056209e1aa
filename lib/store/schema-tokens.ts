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
