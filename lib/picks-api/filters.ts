import { z } from 'zod';
import { AppError } from '../errors';
import { PICK_RESULTS, PICK_STATUSES } from './vocabulary';

/**
 * The one parser of filter search params. Pages, route handlers and exports all call it, so a table
 * and its export can never disagree about what a URL means.
 *
 * Dates: full ISO 8601 timestamps are converted to UTC; a date-only value is a UTC day. `from` is the
 * start of that day (inclusive); a date-only `to` means "through that day", so it becomes the start of
 * the next day, matching the API's exclusive upper bound.
 */

export { PICK_RESULTS, PICK_STATUSES };
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !CONTROL_CHARS.test(value), 'must not contain control characters');

export function toUtcInstant(value: string, bound: 'from' | 'to'): string | null {
  let instant: Date;
  if (DATE_ONLY.test(value)) {
    instant = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(instant.getTime()) || instant.toISOString().slice(0, 10) !== value) return null;
    if (bound === 'to') instant.setUTCDate(instant.getUTCDate() + 1);
  } else {
    if (!ISO_TIMESTAMP.test(value)) return null;
    instant = new Date(value);
    if (Number.isNaN(instant.getTime())) return null;
  }
  // Past 9999-12-31 toISOString writes an extended year (+010000-...), which is no timestamp the API takes.
  const iso = instant.toISOString();
  return /^\d{4}-/.test(iso) ? iso : null;
}

const instant = (bound: 'from' | 'to') =>
  z
    .string()
    .trim()
    .transform((value, ctx) => {
      const iso = toUtcInstant(value, bound);
      if (iso === null) {
        ctx.addIssue({ code: 'custom', message: 'must be a date (YYYY-MM-DD, a UTC day) or an ISO 8601 timestamp' });
        return z.NEVER;
      }
      return iso;
    });

const common = {
  sport: text(100).optional(),
  league: text(100).optional(),
  result: z.enum(PICK_RESULTS, { error: `must be one of ${PICK_RESULTS.join(', ')}` }).optional(),
  from: instant('from').optional(),
  to: instant('to').optional(),
  limit: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .optional(),
  cursor: text(2048).optional(),
};

const withRange = <T extends z.ZodType<{ from?: string; to?: string }>>(schema: T) =>
  schema.refine((f) => !f.from || !f.to || f.from < f.to, { message: 'must be after from', path: ['to'] });

const pickFiltersSchema = withRange(
  z.object({ ...common, status: z.enum(PICK_STATUSES, { error: `must be one of ${PICK_STATUSES.join(', ')}` }).optional() }),
);
const resultFiltersSchema = withRange(z.object(common));

export type PickFilters = z.infer<typeof pickFiltersSchema>;
export type ResultFilters = z.infer<typeof resultFiltersSchema>;
export type FilterKind = 'picks' | 'results';

export const FILTER_KEYS: Record<FilterKind, readonly string[]> = {
  picks: ['sport', 'league', 'status', 'result', 'from', 'to', 'limit', 'cursor'],
  results: ['sport', 'league', 'result', 'from', 'to', 'limit', 'cursor'],
};

/** What Next hands a page as searchParams, or a URLSearchParams from a route handler. */
/** Search params as Next hands them to pages. */
export type PageSearchParams = Record<string, string | string[] | undefined>;
export type SearchParamsInput = URLSearchParams | PageSearchParams;

/** The filter values exactly as sent (first value of each known key), for echoing back in an error. */
export function sentFilterValues(kind: FilterKind, input: SearchParamsInput): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const key of FILTER_KEYS[kind]) {
    const values = readAll(input, key);
    if (values.length > 0) sent[key] = values.join(', ');
  }
  return sent;
}

/** The filter values as sent, without paging state: what an export of this view is asked for. */
export function wholeSetFilterValues(kind: FilterKind, input: SearchParamsInput): Record<string, string> {
  const { limit: _limit, cursor: _cursor, ...rest } = sentFilterValues(kind, input);
  return rest;
}

export type FilterParseResult<T> = { ok: true; filters: T } | { ok: false; error: AppError };

export function parsePickFilters(input: SearchParamsInput): FilterParseResult<PickFilters> {
  return parseWith('picks', pickFiltersSchema, input);
}

export function parseResultFilters(input: SearchParamsInput): FilterParseResult<ResultFilters> {
  return parseWith('results', resultFiltersSchema, input);
}

export function parseFilters(kind: FilterKind, input: SearchParamsInput): FilterParseResult<PickFilters> {
  return kind === 'picks' ? parsePickFilters(input) : parseResultFilters(input);
}

function readAll(input: SearchParamsInput, key: string): string[] {
  if (input instanceof URLSearchParams) return input.getAll(key);
  const value = input[key];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function parseWith<T>(kind: FilterKind, schema: z.ZodType<T>, input: SearchParamsInput): FilterParseResult<T> {
  const { result, problems } = check(kind, schema, input);
  if (result.success && Object.keys(problems).length === 0) return { ok: true, filters: result.data };
  return {
    ok: false,
    error: new AppError({
      code: 'INVALID_FILTERS',
      message: `One or more filters are invalid: ${Object.entries(problems)
        .map(([key, problem]) => `${key} ${problem}`)
        .join('; ')}.`,
      details: sentFilterValues(kind, input),
    }),
  };
}

function check<T>(kind: FilterKind, schema: z.ZodType<T>, input: SearchParamsInput) {
  const raw: Record<string, string> = {};
  const problems: Record<string, string> = {};
  for (const key of FILTER_KEYS[kind]) {
    const values = readAll(input, key);
    if (values.length > 1) problems[key] = 'was given more than once';
    const value = values[0]?.trim();
    if (value) raw[key] = value; // an empty field in a form means "no filter"
  }
  const result = schema.safeParse(raw);
  if (!result.success) for (const issue of result.error.issues) problems[String(issue.path[0] ?? 'filters')] ??= issue.message;
  return { result, problems };
}

/** Each wrong picks filter with what is wrong with it (none: {}), for a request that names them with its own fields. */
export function pickFilterProblems(input: SearchParamsInput): Record<string, string> {
  return check('picks', pickFiltersSchema, input).problems;
}

/** Filters without paging state: what an export or a coverage walk uses. */
export function withoutPaging<T extends { limit?: number; cursor?: string }>(filters: T): Omit<T, 'limit' | 'cursor'> {
  const { limit: _limit, cursor: _cursor, ...rest } = filters;
  return rest;
}
