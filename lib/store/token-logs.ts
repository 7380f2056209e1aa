import { sql, type Kysely } from 'kysely';
import type { Database } from './schema';
import type { Exchange } from '../vocabulary/exchange';

export type { Exchange };

/** The most of a body sent, and of an answer's, that an attempt keeps. */
export const SENT_BODY_BYTES = 64 * 1024;
export const ANSWER_BODY_BYTES = 4 * 1024;

/**
 * What a developer reads back: each consumer webhook attempt's request and answer (kept with the attempt, pruned with
 * it), and each API token's requests (kept TOKEN_REQUESTS_DAYS, written in batches by lib/tokens/request-log.ts).
 */

type Db = Kysely<Database>;

/** How long a token's requests are kept. */
export const TOKEN_REQUESTS_DAYS = 7;
/**
 * The most requests kept for one token: a token at thousands of requests a minute would otherwise write millions of
 * rows a day; it keeps its newest (its page says how many), and the hourly pruning takes the rest.
 */
export const TOKEN_REQUESTS_KEPT = 100_000;

/** The first `max` bytes of a text, cut on a character (a cut body says so on the page by its whole size). */
export function firstBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= max
    ? text
    : bytes
        .subarray(0, max)
        .toString('utf8')
        .replace(/\uFFFD$/, '');
}

export const exchangeColumns = (exchange: Exchange | undefined) =>
  exchange
    ? {
        request_headers: JSON.stringify(exchange.request.headers),
        request_body: firstBytes(exchange.request.body, SENT_BODY_BYTES),
        request_bytes: exchange.request.bytes,
        response_headers: exchange.response
          ? JSON.stringify({ ':status': String(exchange.response.status), ...exchange.response.headers })
          : null,
        response_body: exchange.response ? firstBytes(exchange.response.body, ANSWER_BODY_BYTES) : null,
        response_bytes: exchange.response?.bytes ?? null,
      }
    : {};

/** One attempt's request and answer; null when there is no such attempt of that webhook or it kept none. */
export async function attemptExchange(db: Db, webhookId: string, attemptId: string): Promise<Exchange | null> {
  const row = await db
    .selectFrom('token_webhook_attempts')
    .select(['request_headers', 'request_body', 'request_bytes', 'response_headers', 'response_body', 'response_bytes'])
    .where('id', '=', attemptId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  if (!row || row.request_headers === null) return null;
  const answered = row.response_headers === null ? null : (JSON.parse(row.response_headers) as Record<string, string>);
  const { ':status': status, ...headers } = answered ?? {};
  return {
    request: {
      headers: JSON.parse(row.request_headers) as Record<string, string>,
      body: row.request_body ?? '',
      bytes: Number(row.request_bytes ?? 0),
    },
    response: answered ? { status: Number(status), headers, body: row.response_body ?? '', bytes: Number(row.response_bytes ?? 0) } : null,
  };
}

export interface TokenRequest {
  tokenId: string;
  atMs: number;
  method: string;
  path: string;
  status: number;
  records: number;
  durationMs: number;
  requestId: string;
  /** The prefix of the secret it came with (null: logged before tokens could be rolled). */
  prefix: string | null;
}

/** Requests logged together: one statement for each few hundred. */
export async function insertTokenRequests(db: Db, requests: readonly TokenRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 200) {
    const rows = requests.slice(i, i + 200).map((r) => ({
      token_id: r.tokenId,
      at_ms: r.atMs,
      method: r.method,
      path: r.path.slice(0, 2_000),
      status: r.status,
      records: r.records,
      duration_ms: r.durationMs,
      request_id: r.requestId,
      prefix: r.prefix,
    }));
    await db.insertInto('token_requests').values(rows).execute();
  }
}

export interface RequestFilter {
  /** An exact status, or a class: 2 (2xx), 4 (4xx), 5 (5xx). */
  status?: number;
  /** Part of the path or query. */
  path?: string;
  beforeMs?: number;
}

/** A token's requests, newest first. */
export async function tokenRequests(db: Db, tokenId: string, filter: RequestFilter, limit: number): Promise<TokenRequest[]> {
  let query = db.selectFrom('token_requests').selectAll().where('token_id', '=', tokenId);
  if (filter.status !== undefined)
    query =
      filter.status < 10
        ? query.where('status', '>=', filter.status * 100).where('status', '<', filter.status * 100 + 100)
        : query.where('status', '=', filter.status);
  if (filter.path) {
    // Case folded, and the filter's own % _ \\ taken as they are, alike on both engines.
    const pattern = `%${filter.path.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`lower(path) like ${pattern} escape '\\'`);
  }
  if (filter.beforeMs !== undefined) query = query.where('at_ms', '<', filter.beforeMs);
  const rows = await query.orderBy('at_ms', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    tokenId: r.token_id,
    atMs: Number(r.at_ms),
    method: r.method,
    path: r.path,
    status: Number(r.status),
    records: Number(r.records),
    durationMs: Number(r.duration_ms),
    requestId: r.request_id,
    prefix: r.prefix,
  }));
}

/** When each of these secrets (by prefix) was last used, as the request log has it (null: not in the last days kept). */
export async function lastUseOf(db: Db, tokenId: string, prefixes: readonly string[]): Promise<Map<string, number | null>> {
  const used = new Map<string, number | null>();
  for (const prefix of prefixes) {
    const row = await db
      .selectFrom('token_requests')
      .select((eb) => eb.fn.max('at_ms').as('last'))
      .where('token_id', '=', tokenId)
      .where('prefix', '=', prefix)
      .executeTakeFirst();
    used.set(prefix, row?.last === null || row?.last === undefined ? null : Number(row.last));
  }
  return used;
}

export async function pruneTokenRequests(db: Db, beforeMs: number): Promise<number> {
  const result = await db.deleteFrom('token_requests').where('at_ms', '<', beforeMs).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Each token's requests past its newest `keep` taken out (every token the store holds, revoked ones too). */
export async function capTokenRequests(db: Db, keep = TOKEN_REQUESTS_KEPT): Promise<number> {
  const tokens = await db.selectFrom('api_tokens').select('id').execute();
  let removed = 0;
  for (const { id } of tokens) {
    // The newest request past the ones kept (found on the token's index): it and every older one go.
    const edge = await db
      .selectFrom('token_requests')
      .select('at_ms')
      .where('token_id', '=', id)
      .orderBy('at_ms', 'desc')
      .limit(1)
      .offset(keep)
      .executeTakeFirst();
    if (!edge) continue;
    const result = await db.deleteFrom('token_requests').where('token_id', '=', id).where('at_ms', '<=', edge.at_ms).executeTakeFirst();
    removed += Number(result.numDeletedRows);
  }
  return removed;
}
