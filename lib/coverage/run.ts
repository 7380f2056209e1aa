import { DAY_MS } from '../time';
import 'server-only';
import { AppError } from '../errors';
import { parsePickFilters, type SearchParamsInput } from '../picks-api/filters';
import { getConfig } from '../config';
import type { MeFields } from '../vocabulary/licence';
import { summariseLicence } from '../picks-api/licence';
import { picksApi, type PicksClient } from '../picks-api';
import { createCoverageAccumulator, type CoverageReport } from './aggregate';

/** One coverage view: the query it answers, the walk that feeds the aggregation, and what it cost. */

export const MAX_COVERAGE_DAYS = 120;

export interface CoverageQuery {
  /** As shown and kept in the URL: UTC days, `to` included. */
  fromDay: string;
  toDay: string;
  /** As sent upstream: from inclusive, to exclusive. */
  from: string;
  to: string;
  sport?: string;
  league?: string;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Default: the last 30 days to the next 14 (UTC). Bounded, so a click cannot start an unbounded walk. */
export function parseCoverageQuery(input: SearchParamsInput, now = Date.now()): CoverageQuery {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const read = (key: string) => {
    const value = input instanceof URLSearchParams ? input.get(key) : input[key];
    return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
  };
  const raw = {
    from: read('from') ?? day(today - 30 * DAY_MS),
    to: read('to') ?? day(today + 14 * DAY_MS),
    ...(read('sport') ? { sport: read('sport') } : {}),
    ...(read('league') ? { league: read('league') } : {}),
  };
  const parsed = parsePickFilters(raw);
  if (!parsed.ok) throw parsed.error;
  const { from, to } = parsed.filters as { from: string; to: string };
  const days = Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS);
  if (days > MAX_COVERAGE_DAYS) {
    throw new AppError({
      code: 'INVALID_FILTERS',
      message: `The range is ${days} days; coverage covers at most ${MAX_COVERAGE_DAYS} days at a time.`,
      details: raw,
    });
  }
  return {
    fromDay: raw.from.slice(0, 10),
    toDay: raw.to.slice(0, 10),
    from,
    to,
    sport: parsed.filters.sport,
    league: parsed.filters.league,
  };
}

export interface CoverageProgress {
  records: number;
  requests: number;
}

export interface CoverageOutcome {
  report: CoverageReport;
  requests: number;
  ms: number;
}

export async function runCoverage(
  query: CoverageQuery,
  options: { signal?: AbortSignal; onProgress?: (progress: CoverageProgress) => void; client?: PicksClient; meFields?: MeFields } = {},
): Promise<CoverageOutcome> {
  const client = options.client ?? picksApi();
  // The portal's own client comes with its configuration, PICKS_ME_FIELDS included.
  const meFields = options.meFields ?? (options.client ? {} : getConfig().PICKS_ME_FIELDS);
  const started = performance.now();
  let requests = 0;
  const onRequest = () => (requests += 1);
  const me = await client.me({ signal: options.signal, onRequest });
  const accumulator = createCoverageAccumulator(query, summariseLicence(me, meFields), { sport: query.sport, league: query.league });
  const filters = { from: query.from, to: query.to, sport: query.sport, league: query.league };
  for await (const page of client.walkPickPages(filters, { signal: options.signal, onRequest })) {
    for (const pick of page.data) accumulator.add(pick);
    options.onProgress?.({ records: accumulator.records, requests });
  }
  return { report: accumulator.result(), requests, ms: Math.round(performance.now() - started) };
}
