import { z } from 'zod';

/**
 * API v1's query parameters (spec §4.1) as schemas: what ./plan.ts checks each value with, and what the OpenAPI
 * document says of them (lib/api-v1/openapi.ts) — one source for both, so neither can say what the other does not.
 */

export const V1_STATUSES = ['upcoming', 'live', 'settled', 'void'] as const;
export const V1_RESULTS = ['win', 'loss', 'push', 'void'] as const;
export const V1_MAX_PAGE_SIZE = 200;
export const V1_UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|\+00:00)$/;

const utcTime = (description: string) =>
  z
    .string()
    .regex(V1_UTC_TIME)
    .refine((value) => !Number.isNaN(Date.parse(value)))
    .meta({ description, example: '2026-11-01T00:00:00Z', format: 'date-time' });
const name = (what: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .meta({ description: `Filter by ${what}, as the licence names it (GET /api/v1/me). Outside the token's scope: 403 OUT_OF_SCOPE.` });

export const V1_PARAMS = {
  sport: name('sport'),
  league: name('league'),
  status: z.enum(V1_STATUSES).meta({ description: 'Filter by lifecycle state.' }),
  result: z.enum(V1_RESULTS).meta({ description: 'Filter by result (a token that may not read results may not filter by it: 403).' }),
  from: utcTime('Inclusive lower bound of the event date, UTC.'),
  to: utcTime('Exclusive upper bound of the event date, UTC.'),
  limit: z
    .int()
    .min(1)
    .meta({ description: `Page size; more than ${V1_MAX_PAGE_SIZE} is served as ${V1_MAX_PAGE_SIZE}. Absent: the upstream's default.` }),
  cursor: z.string().min(1).meta({
    description:
      'Opaque: page.nextCursor of the previous page, sent with the same filters (§4.2). It is bound to the token, the endpoint, the filters and the scope: any other use is 400 INVALID_FILTERS.',
  }),
};

export type V1Param = keyof typeof V1_PARAMS;

/** The parameters each list endpoint takes: its filters, then limit and cursor. */
export const V1_LIST_PARAMS = {
  picks: ['sport', 'league', 'status', 'result', 'from', 'to'],
  results: ['sport', 'league', 'result', 'from', 'to'],
} as const satisfies Record<string, readonly V1Param[]>;

/** Whether one value passes its parameter's schema (limit as the whole number its digits say). */
export function validParam(key: V1Param, value: string): boolean {
  if (key === 'limit') return /^\d{1,9}$/.test(value) && V1_PARAMS.limit.safeParse(Number(value)).success;
  return V1_PARAMS[key].safeParse(value).success;
}
