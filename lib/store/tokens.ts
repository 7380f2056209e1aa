import { sql, type Kysely, type Selectable } from 'kysely';
import type { TokenScope } from '../vocabulary/tokens';
import type { Database } from './schema';
import type { ApiTokensTable, TokenUsageTable } from './schema-tokens';
import type { z } from 'zod';
import type { dayUsageSchema } from '../vocabulary/token-view';

/** Scoped API tokens (lib/tokens) and their use per day. The token itself is never stored: only its sha256. */

type Db = Kysely<Database>;

export interface ApiToken {
  id: string;
  name: string;
  owner: string;
  /** When the owner was given it (creation or reassignment). */
  ownerSinceMs: number;
  prefix: string;
  scope: TokenScope;
  expiresMs: number;
  ratePerMinute: number;
  dailyRecords: number;
  createdMs: number;
  createdBy: string;
  updatedMs: number;
  revokedMs: number | null;
  revokedBy: string | null;
  /** The secret it was rolled from, working until `untilMs`; null: none (or its overlap is over). */
  previous?: { prefix: string; untilMs: number } | null;
  rolledMs?: number | null;
}

/** A token as a secret presented found it: by its secret, or by the one it was rolled from. */
export type PresentedToken = ApiToken & { presented: 'current' | 'previous' };

const toToken = (row: Selectable<ApiTokensTable>): ApiToken => ({
  id: row.id,
  name: row.name,
  owner: row.owner,
  ownerSinceMs: Number(row.owner_since_ms ?? row.created_ms),
  prefix: row.prefix,
  scope: JSON.parse(row.scope) as TokenScope,
  expiresMs: Number(row.expires_ms),
  ratePerMinute: Number(row.rate_per_minute),
  dailyRecords: Number(row.daily_records),
  createdMs: Number(row.created_ms),
  createdBy: row.created_by,
  updatedMs: Number(row.updated_ms),
  revokedMs: row.revoked_ms === null ? null : Number(row.revoked_ms),
  revokedBy: row.revoked_by,
  previous:
    row.prev_hash !== null && row.prev_prefix !== null && row.prev_until_ms !== null
      ? { prefix: row.prev_prefix, untilMs: Number(row.prev_until_ms) }
      : null,
  rolledMs: row.rolled_ms === null ? null : Number(row.rolled_ms),
});

export async function insertToken(db: Db, token: ApiToken, hash: string): Promise<void> {
  await db
    .insertInto('api_tokens')
    .values({
      id: token.id,
      name: token.name,
      owner: token.owner,
      owner_since_ms: token.ownerSinceMs,
      hash,
      prefix: token.prefix,
      scope: JSON.stringify(token.scope),
      expires_ms: token.expiresMs,
      rate_per_minute: token.ratePerMinute,
      daily_records: token.dailyRecords,
      created_ms: token.createdMs,
      created_by: token.createdBy,
      updated_ms: token.updatedMs,
      revoked_ms: null,
      revoked_by: null,
    })
    .execute();
}

export async function updateToken(
  db: Db,
  id: string,
  change: Pick<ApiToken, 'name' | 'scope' | 'expiresMs' | 'ratePerMinute' | 'dailyRecords' | 'updatedMs'>,
): Promise<void> {
  await db
    .updateTable('api_tokens')
    .set({
      name: change.name,
      scope: JSON.stringify(change.scope),
      expires_ms: change.expiresMs,
      rate_per_minute: change.ratePerMinute,
      daily_records: change.dailyRecords,
      updated_ms: change.updatedMs,
    })
    .where('id', '=', id)
    .where('revoked_ms', 'is', null)
    .execute();
}

export async function revokeToken(db: Db, id: string, by: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_ms: at, revoked_by: by, updated_ms: at })
    .where('id', '=', id)
    .where('revoked_ms', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives the token to another owner (their own from now on); false when it is revoked or gone. */
export async function reassignToken(db: Db, id: string, owner: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ owner, owner_since_ms: at, updated_ms: at })
    .where('id', '=', id)
    .where('revoked_ms', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function getToken(db: Db, id: string): Promise<ApiToken | null> {
  const row = await db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toToken(row) : null;
}

export async function tokenByHash(db: Db, hash: string): Promise<PresentedToken | null> {
  const row = await db.selectFrom('api_tokens').selectAll().where('hash', '=', hash).executeTakeFirst();
  if (row) return { ...toToken(row), presented: 'current' };
  const rolled = await db.selectFrom('api_tokens').selectAll().where('prev_hash', '=', hash).executeTakeFirst();
  return rolled ? { ...toToken(rolled), presented: 'previous' } : null;
}

/**
 * A new secret for the token: the one it had works on until `previousUntilMs` (null: refused at once); a secret it
 * was rolled from before is refused from now. False when the token is revoked or gone.
 */
export async function rollToken(
  db: Db,
  id: string,
  secret: { hash: string; prefix: string },
  previousUntilMs: number | null,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set((eb) => ({
      hash: secret.hash,
      prefix: secret.prefix,
      // Both engines read the row as it was in every SET expression: the previous secret is the one replaced.
      prev_hash: previousUntilMs === null ? null : eb.ref('hash'),
      prev_prefix: previousUntilMs === null ? null : eb.ref('prefix'),
      prev_until_ms: previousUntilMs,
      rolled_ms: at,
      updated_ms: at,
    }))
    .where('id', '=', id)
    .where('revoked_ms', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Every token (owner null), or one person's; newest first. */
export async function listTokens(db: Db, owner: string | null): Promise<ApiToken[]> {
  let select = db.selectFrom('api_tokens').selectAll();
  if (owner !== null) select = select.where('owner', '=', owner);
  return (await select.orderBy('created_ms', 'desc').execute()).map(toToken);
}

export type DayUsage = z.infer<typeof dayUsageSchema>;
export type UsageDelta = Omit<DayUsage, 'day'>;

/** Adds what an instance counted since its last flush to the token's day. */
export async function addUsage(db: Db, tokenId: string, day: string, delta: UsageDelta): Promise<void> {
  await db
    .insertInto('token_usage')
    .values({
      token_id: tokenId,
      day,
      requests: delta.requests,
      records: delta.records,
      bytes: delta.bytes,
      client_errors: delta.clientErrors,
      throttled: delta.throttled,
      last_ms: delta.lastMs,
      last_address: delta.lastAddress,
    })
    .onConflict((oc) =>
      oc.columns(['token_id', 'day']).doUpdateSet({
        requests: sql`token_usage.requests + ${delta.requests}`,
        records: sql`token_usage.records + ${delta.records}`,
        bytes: sql`token_usage.bytes + ${delta.bytes}`,
        client_errors: sql`token_usage.client_errors + ${delta.clientErrors}`,
        throttled: sql`token_usage.throttled + ${delta.throttled}`,
        last_ms: sql`case when token_usage.last_ms > ${delta.lastMs} then token_usage.last_ms else ${delta.lastMs} end`,
        last_address: sql`case when token_usage.last_ms > ${delta.lastMs} then token_usage.last_address else ${delta.lastAddress} end`,
      }),
    )
    .execute();
}

const toDayUsage = (row: Selectable<TokenUsageTable>): DayUsage => ({
  day: row.day,
  requests: Number(row.requests),
  records: Number(row.records),
  bytes: Number(row.bytes),
  clientErrors: Number(row.client_errors),
  throttled: Number(row.throttled),
  lastMs: Number(row.last_ms),
  lastAddress: row.last_address,
});

/** A token's days from `sinceDay` (YYYY-MM-DD), oldest first. */
export async function usageOf(db: Db, tokenId: string, sinceDay: string): Promise<DayUsage[]> {
  const rows = await db
    .selectFrom('token_usage')
    .selectAll()
    .where('token_id', '=', tokenId)
    .where('day', '>=', sinceDay)
    .orderBy('day')
    .execute();
  return rows.map(toDayUsage);
}

/** A token's use on one day, and when it was last used on any day. */
export interface UsageSummary {
  today: DayUsage | null;
  lastMs: number | null;
}

/** Each token's use on one day and its last use ever: for lists, the overview and alerts. */
export async function usageSummary(db: Db, day: string): Promise<Map<string, UsageSummary>> {
  const [today, last] = await Promise.all([
    db.selectFrom('token_usage').selectAll().where('day', '=', day).execute(),
    db
      .selectFrom('token_usage')
      .select(['token_id', (eb) => eb.fn.max('last_ms').as('last_ms')])
      .groupBy('token_id')
      .execute(),
  ]);
  const todays = new Map(today.map((row) => [row.token_id, toDayUsage(row)]));
  return new Map(
    last.map((row) => [
      row.token_id,
      { today: todays.get(row.token_id) ?? null, lastMs: row.last_ms === null ? null : Number(row.last_ms) },
    ]),
  );
}
