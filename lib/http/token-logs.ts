import 'server-only';
import type { PortalSession } from '../auth/principal';
import { AppError, invalidFields, toAppError } from '../errors';
import { fromStore } from '../store';
import {
  attemptExchange,
  lastUseOf,
  tokenRequests,
  TOKEN_REQUESTS_DAYS,
  TOKEN_REQUESTS_KEPT,
  type TokenRequest,
} from '../store/token-logs';
import { endpointOf, tokenOf } from './webhooks';

/**
 * What a developer reads back on a token's page: one webhook attempt's request and answer
 * (GET /api/tokens/<id>/webhooks/<wid>/attempts/<aid>), and the token's own requests to API v1 and the MCP server
 * (GET /api/tokens/<id>/requests?status=&path=&before=). Who may see the token (its owner, admins) may read them.
 */

type User = PortalSession['user'];
const json = (body: unknown) => Response.json(body, { headers: { 'Cache-Control': 'private, no-store' } });
export const REQUESTS_SHOWN = 50;

export async function attemptExchangeResponse(user: User, tokenId: string, webhookId: string, attemptId: string): Promise<Response> {
  const { hook } = await endpointOf(user, tokenId, webhookId);
  const exchange = /^wha_[0-9a-f]{16}$/.test(attemptId) ? await fromStore((db) => attemptExchange(db, hook.id, attemptId)) : null;
  if (!exchange)
    throw new AppError({ code: 'NOT_FOUND', message: 'There is no such attempt, or it kept nothing (it was made before logs were kept).' });
  return json(exchange);
}

export interface RequestsQuery {
  status?: number;
  path?: string;
  beforeMs?: number;
}

/** The filters of a token's request log, every wrong one named at once. */
export function parseRequestsQuery(params: URLSearchParams): RequestsQuery {
  const problems: Record<string, string> = {};
  const query: RequestsQuery = {};
  const status = params.get('status')?.trim();
  if (status) {
    const cls = /^([245])xx$/i.exec(status);
    if (cls) query.status = Number(cls[1]);
    else if (/^[1-5]\d\d$/.test(status)) query.status = Number(status);
    else problems.status = 'must be a status such as 429, or a class: 2xx, 4xx or 5xx';
  }
  const path = params.get('path')?.trim();
  if (path) {
    if (path.length > 200) problems.path = 'must be at most 200 characters';
    else query.path = path;
  }
  const before = params.get('before');
  if (before) {
    const ms = Date.parse(before);
    if (Number.isNaN(ms)) problems.before = 'must be a time (ISO 8601)';
    else query.beforeMs = ms;
  }
  if (Object.keys(problems).length > 0) throw invalidFields('request log filters', problems, 'INVALID_FILTERS');
  return query;
}

export interface RequestsPage {
  data: TokenRequest[];
  keptDays: number;
  /** At most this many of a token's newest requests are kept. */
  keptMost: number;
  /** Ask again with `before` for older ones; null at the end. */
  nextBefore: string | null;
}

export async function tokenRequestsPage(user: User, tokenId: string, query: RequestsQuery): Promise<RequestsPage> {
  const token = await tokenOf(user, tokenId);
  const rows = await fromStore((db) => tokenRequests(db, token.id, query, REQUESTS_SHOWN + 1));
  const data = rows.slice(0, REQUESTS_SHOWN);
  return {
    data,
    keptDays: TOKEN_REQUESTS_DAYS,
    keptMost: TOKEN_REQUESTS_KEPT,
    nextBefore: rows.length > REQUESTS_SHOWN ? new Date(data.at(-1)!.atMs).toISOString() : null,
  };
}

export async function tokenRequestsResponse(request: Request, user: User, tokenId: string): Promise<Response> {
  return json(await tokenRequestsPage(user, tokenId, parseRequestsQuery(new URL(request.url).searchParams)));
}

/** The token page's request log: its filters as asked, the page, or what was wrong with the filters. */
export async function requestLogFor(user: User, tokenId: string, asked: Record<string, string | string[] | undefined>) {
  const one = (name: string) => (typeof asked[name] === 'string' ? (asked[name] as string) : '');
  const filters = { status: one('status'), path: one('path') };
  const params = new URLSearchParams(Object.entries({ ...filters, before: one('before') }).filter(([, value]) => value !== ''));
  try {
    return { filters, page: await tokenRequestsPage(user, tokenId, parseRequestsQuery(params)), error: null };
  } catch (error) {
    return { filters, page: null, error: toAppError(error).toJSON() };
  }
}

/** When each of a token's secrets (the one it has, the one it was rolled from while that works) was last used. */
export async function secretsLastUsed(token: { id: string; prefix: string; previous: { prefix: string } | null }) {
  const prefixes = [token.prefix, ...(token.previous ? [token.previous.prefix] : [])];
  const used = await fromStore((db) => lastUseOf(db, token.id, prefixes)).catch(() => new Map<string, number | null>());
  return Object.fromEntries(prefixes.map((prefix) => [prefix, used.get(prefix) ? new Date(used.get(prefix)!).toISOString() : null]));
}
