import { shown } from '../strict-query';
import { nearest } from '../nearest';
import { listOf } from '../plural';
import { V1Error } from '../tokens/refusal';
import { V1_LIST_PARAMS, V1_MAX_PAGE_SIZE, V1_RESULTS, V1_STATUSES, validParam, type V1Param } from './params';
import type { TokenScope } from '../tokens/scope';
import type { LicenceSummary } from '../vocabulary/licence';

/**
 * A consumer's request to the portal's API v1, read as the spec describes the upstream's (§4.1): unknown,
 * repeated, empty or malformed parameters are INVALID_FILTERS, all named at once. Then planned inside the
 * token's scope: a filter outside it is refused (403), and the upstream is asked only for what is inside —
 * one request per sport or league the scope lists (the upstream filters by one of each), walked one after the
 * other behind one cursor.
 */

export type Endpoint = 'picks' | 'results';
export const MAX_PAGE_SIZE = V1_MAX_PAGE_SIZE;
const PARAMS: Record<Endpoint, readonly V1Param[]> = V1_LIST_PARAMS;
const STATUSES: readonly string[] = V1_STATUSES;
const RESULTS: readonly string[] = V1_RESULTS;

export interface V1Query {
  filters: Record<string, string>;
  /** null: not given (the upstream's default page size). */
  limit: number | null;
  cursor: string | null;
}

const EXAMPLE_TIME = '2026-11-01T00:00:00Z';
const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const didYouMean = (value: string, allowed: readonly string[]) => {
  const near = nearest(value, allowed);
  return near && near !== value ? ` (did you mean "${near}"?)` : '';
};

/** What is wrong with a time filter, and the form that is expected. */
function timeProblem(value: string): string | null {
  if (validParam('from', value)) return null;
  const hint = DAY_ONLY.test(value) ? ` (for the whole day: ${value}T00:00:00Z)` : '';
  return `must be a UTC timestamp such as ${EXAMPLE_TIME}${hint}`;
}

/**
 * Every wrong parameter, with why and what is expected, in one message that still opens as the spec's does
 * ("One or more filters are invalid"). Values are not echoed back; a suggestion comes from the portal's own
 * words (a status, a parameter name) or is rebuilt from digits (a day made a timestamp).
 */
export function parseV1Query(params: URLSearchParams, endpoint: Endpoint): V1Query {
  const allowed: string[] = [...PARAMS[endpoint], 'limit', 'cursor'];
  const problems = new Map<string, string>();
  const note = (key: string, problem: string) => {
    if (!problems.has(shown(key))) problems.set(shown(key), problem);
  };
  for (const key of new Set(params.keys())) {
    if (!allowed.includes(key))
      note(key, `is not a parameter of /api/v1/${endpoint}${didYouMean(key, allowed)}; it takes ${allowed.join(', ')}`);
    else if (params.getAll(key).length > 1) note(key, 'is given more than once');
    else if ((params.get(key) ?? '') === '') note(key, 'is empty (leave it out to not filter by it)');
  }
  const filters: Record<string, string> = {};
  for (const key of PARAMS[endpoint] as readonly string[]) {
    const value = params.get(key);
    if (value !== null && value !== '') filters[key] = value;
  }
  if (filters.status && !validParam('status', filters.status))
    note('status', `must be one of ${STATUSES.join(', ')}${didYouMean(filters.status, STATUSES)}`);
  if (filters.result && !validParam('result', filters.result))
    note('result', `must be one of ${RESULTS.join(', ')}${didYouMean(filters.result, RESULTS)}`);
  for (const key of ['sport', 'league'] as const)
    if (filters[key] !== undefined && !validParam(key, filters[key])) note(key, 'is longer than 200 characters');
  for (const key of ['from', 'to']) {
    const problem = filters[key] === undefined ? null : timeProblem(filters[key]);
    if (problem) note(key, problem);
  }
  if (filters.from && filters.to && !problems.has('from') && !problems.has('to') && Date.parse(filters.from) > Date.parse(filters.to))
    note('to', 'is before from (from is the inclusive start, to the exclusive end)');
  const limitText = params.get('limit');
  if (limitText !== null && !validParam('limit', limitText))
    note('limit', `must be a whole number from 1 (pages hold at most ${MAX_PAGE_SIZE} records)`);
  if (problems.size > 0) {
    const said = [...problems].map(([key, problem]) => `${key} ${problem}`).join('; ');
    throw new V1Error(400, 'INVALID_FILTERS', `One or more filters are invalid: ${said}.`);
  }
  return {
    filters,
    limit: limitText === null ? null : Math.min(Number(limitText), MAX_PAGE_SIZE),
    cursor: params.get('cursor'),
  };
}

/** The upstream requests that make up a consumer's walk, in order: each one's filters. */
export function planRequests(
  scope: TokenScope,
  filters: Record<string, string>,
  licence: Pick<LicenceSummary, 'sports' | 'leagues'> | null = null,
): Record<string, string>[] {
  const refuse = (what: string) => new V1Error(403, 'OUT_OF_SCOPE', `${what} is outside this token's scope.`);
  for (const key of SCOPED) {
    const problem = outsideScope(key, filters[key], scope[`${key}s`], licence?.[`${key}s`] ?? null);
    if (problem) throw new V1Error(403, 'OUT_OF_SCOPE', problem);
  }
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

const SCOPED = ['sport', 'league'] as const;
const listed = (values: readonly string[]) => listOf(values, 10);

/**
 * Why a sport or league asked for is refused, or null: unknown to the licence (with the nearest name the
 * token may use), or in the licence but outside the token's scope (naming what the scope covers). Without
 * the licence (its /me does not say, or it was not asked) only the scope is told. An unknown value is never
 * echoed back; one the licence names may be.
 */
export function outsideScope(
  what: string,
  value: string | undefined,
  scoped: readonly string[],
  licensed: readonly string[] | null,
): string | null {
  if (value === undefined) return null;
  const usable = scoped.length > 0 ? scoped : (licensed ?? []);
  if (licensed && !licensed.includes(value))
    return `The ${what} asked for is not one of the licence's ${what}s${didYouMean(value, usable)}.`;
  if (scoped.length === 0 || scoped.includes(value)) return null;
  if (licensed) return `The ${what} "${value}" is in the licence but outside this token's scope, which covers ${listed(scoped)}.`;
  return `The ${what} asked for is outside this token's scope, which covers ${listed(scoped)}${didYouMean(value, scoped)}.`;
}

/** Whether judging the filters needs the licence: a sport or league the token's scope does not list. */
export function needsLicence(scope: TokenScope, filters: Record<string, string>): boolean {
  return SCOPED.some((key) => outsideScope(key, filters[key], scope[`${key}s`], null) !== null);
}
