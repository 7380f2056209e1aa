import { shown } from '../strict-query';
import { V1Error } from './v1-errors';
import type { TokenScope } from './scope';

/**
 * A consumer's request to the portal's API v1, read as the spec describes the upstream's (§4.1): unknown,
 * repeated, empty or malformed parameters are INVALID_FILTERS, all named at once. Then planned inside the
 * token's scope: a filter outside it is refused (403), and the upstream is asked only for what is inside —
 * one request per sport or league the scope lists (the upstream filters by one of each), walked one after the
 * other behind one cursor.
 */

export type Endpoint = 'picks' | 'results';
export const MAX_PAGE_SIZE = 200;
const PARAMS: Record<Endpoint, readonly string[]> = {
  picks: ['sport', 'league', 'status', 'result', 'from', 'to'],
  results: ['sport', 'league', 'result', 'from', 'to'],
};
const STATUSES = ['upcoming', 'live', 'settled', 'void'];
const RESULTS = ['win', 'loss', 'push', 'void'];
const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|\+00:00)$/;

export interface V1Query {
  filters: Record<string, string>;
  /** null: not given (the upstream's default page size). */
  limit: number | null;
  cursor: string | null;
}

export function parseV1Query(params: URLSearchParams, endpoint: Endpoint): V1Query {
  const allowed = [...PARAMS[endpoint], 'limit', 'cursor'];
  const bad = new Set<string>();
  for (const key of new Set(params.keys()))
    if (!allowed.includes(key) || params.getAll(key).length > 1 || (params.get(key) ?? '') === '') bad.add(key);
  const filters: Record<string, string> = {};
  for (const key of PARAMS[endpoint]) {
    const value = params.get(key);
    if (value !== null && value !== '') filters[key] = value;
  }
  if (filters.status && !STATUSES.includes(filters.status)) bad.add('status');
  if (filters.result && !RESULTS.includes(filters.result)) bad.add('result');
  for (const key of ['sport', 'league']) if ((filters[key]?.length ?? 0) > 200) bad.add(key);
  for (const key of ['from', 'to']) {
    const value = filters[key];
    if (value !== undefined && (!UTC_TIME.test(value) || Number.isNaN(Date.parse(value)))) bad.add(key);
  }
  if (filters.from && filters.to && !bad.has('from') && !bad.has('to') && Date.parse(filters.from) > Date.parse(filters.to)) bad.add('to');
  const limitText = params.get('limit');
  if (limitText !== null && (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1)) bad.add('limit');
  if (bad.size > 0) {
    // A plain name is named; anything else is not echoed back (it is whatever the request said).
    throw new V1Error(400, 'INVALID_FILTERS', `One or more filters are invalid (${[...new Set([...bad].map(shown))].join(', ')}).`);
  }
  return {
    filters,
    limit: limitText === null ? null : Math.min(Number(limitText), MAX_PAGE_SIZE),
    cursor: params.get('cursor'),
  };
}

/** The upstream requests that make up a consumer's walk, in order: each one's filters. */
export function planRequests(scope: TokenScope, filters: Record<string, string>): Record<string, string>[] {
  const refuse = (what: string) => new V1Error(403, 'OUT_OF_SCOPE', `${what} is outside this token's scope.`);
  if (filters.sport && scope.sports.length > 0 && !scope.sports.includes(filters.sport)) throw refuse('The sport asked for');
  if (filters.league && scope.leagues.length > 0 && !scope.leagues.includes(filters.league)) throw refuse('The league asked for');
  const later = (a: string | undefined, b: string | null) =>
    a === undefined ? (b ?? undefined) : b === null || Date.parse(a) >= Date.parse(b) ? a : b;
  const earlier = (a: string | undefined, b: string | null) =>
    a === undefined ? (b ?? undefined) : b === null || Date.parse(a) <= Date.parse(b) ? a : b;
  const from = later(filters.from, scope.from);
  const to = earlier(filters.to, scope.to);
  if ((filters.from || filters.to) && from !== undefined && to !== undefined && Date.parse(from) >= Date.parse(to))
    throw refuse('The date range asked for');

  const base: Record<string, string> = {};
  for (const key of ['status', 'result'] as const) if (filters[key]) base[key] = filters[key];
  if (from !== undefined) base.from = from;
  if (to !== undefined) base.to = to;
  const sports = filters.sport ? [filters.sport] : scope.sports;
  const leagues = filters.league ? [filters.league] : scope.leagues;
  if (leagues.length > 0) return leagues.map((league) => ({ ...base, ...(sports.length === 1 ? { sport: sports[0]! } : {}), league }));
  if (sports.length > 0) return sports.map((sport) => ({ ...base, sport }));
  return [base];
}
