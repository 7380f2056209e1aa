import { z } from 'zod';
import { MAX_EVENTS_PAGE } from './events-query';
import { V1_LIST_PARAMS, V1_MAX_PAGE_SIZE, V1_PARAMS } from './params';
import { V1_SEARCH_SORTS } from './shapes';

/**
 * What each API v1 operation takes in its query, as one object schema each: the OpenAPI document's parameters
 * (./openapi.ts) and the MCP server's tool inputs (lib/mcp/tools.ts) are both these, so an assistant is offered
 * exactly what a client generated from the document may send. The handlers check the same bounds (./plan.ts,
 * ./search.ts, ./events-query.ts; tests/contract/v1-document.test.ts holds them to it).
 */

/** A whole number a query parameter takes, with the bounds the handler checks (integers, not strings). */
export const whole = (min: number, max?: number) => (max === undefined ? z.int().min(min) : z.int().min(min).max(max));

/** The page size as a client should send it: the spec's cap (§4.2) as the maximum; the handler serves more as the cap. */
export const DOCUMENTED_LIMIT = z
  .int()
  .min(1)
  .max(V1_MAX_PAGE_SIZE)
  .meta({ description: `Page size, 1–${V1_MAX_PAGE_SIZE} (more is served as ${V1_MAX_PAGE_SIZE}). Absent: the upstream's default.` });

const listQuery = (endpoint: keyof typeof V1_LIST_PARAMS) =>
  z.object(
    Object.fromEntries(
      [...V1_LIST_PARAMS[endpoint], 'limit', 'cursor'].map((key) => [
        key,
        (key === 'limit' ? DOCUMENTED_LIMIT : V1_PARAMS[key as keyof typeof V1_PARAMS]).optional(),
      ]),
    ),
  );

export const V1_QUERIES = {
  picks: listQuery('picks'),
  results: listQuery('results'),
  search: z.object({
    q: z
      .string()
      .max(200)
      .optional()
      .meta({ description: 'Words to find (case and accents folded, parts of words match); required unless sort is given.' }),
    kind: z.enum(['picks', 'results']).optional().meta({ description: 'picks (default) or results (settled records).' }),
    sort: z.enum(V1_SEARCH_SORTS).optional(),
    dir: z.enum(['asc', 'desc']).optional(),
    page: whole(1, 1_000_000).optional().meta({ description: 'The page number, from 1.' }),
    limit: whole(1, V1_MAX_PAGE_SIZE)
      .optional()
      .meta({ description: `1–${V1_MAX_PAGE_SIZE}; default 50.` }),
    sport: V1_PARAMS.sport.optional(),
    league: V1_PARAMS.league.optional(),
    status: V1_PARAMS.status.optional(),
    result: V1_PARAMS.result.optional(),
    from: V1_PARAMS.from.optional(),
    to: V1_PARAMS.to.optional(),
  }),
  events: z.object({
    after: whole(0).optional().meta({ description: 'The last event id read (0: the oldest kept). Absent: from now.' }),
    limit: whole(1, MAX_EVENTS_PAGE).optional().meta({ description: '1–1,000; default 100.' }),
  }),
};

/** A query's values as the URL's parameters (numbers in digits; absent values left out). */
export function queryString(values: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
