import { invalidFilters } from './respond';

/** The query of GET /picks and /results (spec §4.1): unknown, repeated, empty or malformed parameters are INVALID_FILTERS. */

export const MAX_PAGE_SIZE = 200;
const STATUSES = ['upcoming', 'live', 'settled', 'void'];
const RESULTS = ['win', 'loss', 'push', 'void'];
export const FILTER_PARAMS = ['sport', 'league', 'status', 'result', 'from', 'to'] as const;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|\+00:00)$/;

export type Filters = Partial<Record<(typeof FILTER_PARAMS)[number], string>>;

export function parseQuery(params: URLSearchParams, kind: 'picks' | 'results', defaultPageSize: number) {
  const allowed = kind === 'picks' ? [...FILTER_PARAMS, 'limit', 'cursor'] : ['sport', 'league', 'result', 'from', 'to', 'limit', 'cursor'];
  const bad = new Set<string>();
  for (const key of new Set(params.keys())) {
    if (!allowed.includes(key) || params.getAll(key).length > 1 || (params.get(key) ?? '') === '') bad.add(key);
  }
  const filters: Filters = {};
  for (const key of FILTER_PARAMS) {
    const value = params.get(key);
    if (value !== null) filters[key] = value;
  }
  if (filters.status && !STATUSES.includes(filters.status)) bad.add('status');
  if (filters.result && !RESULTS.includes(filters.result)) bad.add('result');
  for (const key of ['sport', 'league'] as const) if (filters[key] && filters[key].length > 200) bad.add(key);
  for (const key of ['from', 'to'] as const) {
    const value = filters[key];
    if (value && (!TIMESTAMP.test(value) || Number.isNaN(Date.parse(value)))) bad.add(key);
  }
  if (filters.from && filters.to && !bad.has('from') && !bad.has('to') && Date.parse(filters.from) > Date.parse(filters.to)) bad.add('to');
  const limitText = params.get('limit');
  if (limitText !== null && (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1)) bad.add('limit');
  if (bad.size > 0) throw invalidFilters(bad);
  const limit = limitText === null ? defaultPageSize : Math.min(Number(limitText), MAX_PAGE_SIZE);
  return { filters, limit, cursor: params.get('cursor') ?? undefined };
}
