import 'server-only';
import type { z } from 'zod';
import { getRecentLicence } from '../picks-api/portal';
import { allowedBy, findInIndex, narrowedBy, SORT_COLUMNS } from '../records/search';
import type { ApiToken } from '../store/tokens';
import { reserveRecords } from '../tokens/limits';
import { projectRecord, withheldFields } from '../tokens/scope';
import { V1Error } from '../tokens/refusal';
import { V1_MAX_PAGE_SIZE, validParam, type V1Param } from './params';
import type { V1Request } from './request';
import { searchPageSchema } from './shapes';

/**
 * GET /api/v1/search: the portal's own operation beside API v1's (not the upstream's: the spec has no search),
 * answered from its index of the licensed set (docs/search.md) — words anywhere in a record, the whole set in any
 * order, any page by number, the total. Scoped by the token like every answer: its sports, leagues and window
 * narrow what is searched (a filter outside them is 403), its content takes fields out of each record, and each
 * record answered is one of its daily records.
 */

export const V1_SEARCH_PARAMS = ['q', 'kind', 'sort', 'dir', 'page', 'limit', 'sport', 'league', 'status', 'result', 'from', 'to'] as const;

const refuse = (problems: string[]) => new V1Error(400, 'INVALID_FILTERS', `One or more parameters are invalid: ${problems.join('; ')}.`);

export async function searchAnswer(request: V1Request, token: ApiToken, requestId: string): Promise<{ body: string; records: number }> {
  const params = request.url.searchParams;
  const problems: string[] = [];
  for (const key of new Set(params.keys()))
    if (!(V1_SEARCH_PARAMS as readonly string[]).includes(key))
      problems.push(`${key.slice(0, 40)} is not a parameter of the search (${V1_SEARCH_PARAMS.join(', ')})`);
  const one = (key: string) => {
    const values = params.getAll(key);
    if (values.length > 1) problems.push(`${key} was given more than once`);
    return values[0];
  };
  const q = one('q') ?? '';
  if (q.trim() === '' && !one('sort')) problems.push('q must name what to search for (or sort must order the whole set)');
  if (q.length > 200) problems.push('q must be at most 200 characters');
  const kind = one('kind') ?? 'picks';
  if (kind !== 'picks' && kind !== 'results') problems.push('kind must be picks or results');
  const sort = one('sort');
  if (sort !== undefined && sort !== 'relevance' && !(SORT_COLUMNS as string[]).includes(sort))
    problems.push(`sort must be relevance or one of ${SORT_COLUMNS.join(', ')}`);
  const dir = one('dir');
  if (dir !== undefined && dir !== 'asc' && dir !== 'desc') problems.push('dir must be asc or desc');
  const whole = (key: string, max: number) => {
    const value = one(key);
    if (value === undefined) return undefined;
    if (!/^\d{1,7}$/.test(value) || Number(value) < 1 || Number(value) > max)
      problems.push(`${key} must be a whole number from 1 to ${max}`);
    return Number(value);
  };
  const page = whole('page', 1_000_000);
  const limit = whole('limit', V1_MAX_PAGE_SIZE) ?? 50;
  const filters: Record<string, string> = {};
  for (const key of ['sport', 'league', 'status', 'result', 'from', 'to'] as const) {
    const value = one(key);
    if (value === undefined) continue;
    if (!validParam(key as V1Param, value)) problems.push(`${key} is not valid`);
    else filters[key] = value;
  }
  if (problems.length > 0) throw refuse(problems);
  const { scope } = token;
  const content = kind === 'picks' ? 'picks' : 'results';
  if (!scope.content.includes(content)) throw new V1Error(403, 'OUT_OF_SCOPE', `This token may not read ${content}.`);
  if (filters.result && !scope.content.includes('results')) throw new V1Error(403, 'OUT_OF_SCOPE', 'This token may not read results.');
  if (filters.sport && scope.sports.length > 0 && !scope.sports.includes(filters.sport))
    throw new V1Error(403, 'OUT_OF_SCOPE', `This token may read ${scope.sports.join(', ')} only, not ${filters.sport}.`);
  if (filters.league && scope.leagues.length > 0 && !scope.leagues.includes(filters.league))
    throw new V1Error(403, 'OUT_OF_SCOPE', `This token may read the leagues ${scope.leagues.join(', ')} only, not ${filters.league}.`);
  const licence = await getRecentLicence();
  const allowed = narrowedBy(allowedBy(licence.ok ? licence.value.summary : null), scope);
  const reserved = await reserveRecords(token, limit);
  let served = 0;
  try {
    const found = await findInIndex(
      content,
      { ...filters, limit: reserved.granted },
      { q, sort: sort as never, dir: dir as never, page },
      allowed,
    );
    const withheld = withheldFields(scope);
    served = found.records.length;
    const body: z.infer<typeof searchPageSchema> = {
      // The index keeps records by their id: every one it answers has it.
      data: found.records.map((record) => projectRecord(record, withheld)) as z.infer<typeof searchPageSchema>['data'],
      page: { number: found.page, size: found.size, total: found.total, lastPage: found.lastPage },
      index: { lastPollAt: found.freshness.lastPollAt, followedAt: found.freshness.indexedAt },
      requestId,
    };
    return { body: JSON.stringify(body), records: served };
  } finally {
    await reserved.settle(served);
  }
}
