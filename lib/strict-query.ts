import { z } from 'zod';
import { AppError } from './errors';
import { exampleDay } from './time';

/** A UTC day (2026-11-22), or any ISO 8601 time with its offset: what time filters of URLs accept. */
export const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const instant = z
  .string()
  .trim()
  .refine((value) => (DAY.test(value) || z.iso.datetime({ offset: true }).safeParse(value).success) && !Number.isNaN(Date.parse(value)), {
    error: () => `must be a UTC day (${exampleDay()}) or an ISO 8601 time`,
  });

/**
 * Reads a URL's query into a strict zod object: a name given twice, a name the object does not know, or a
 * bad value is an INVALID_FILTERS AppError naming each ("colour is not a filter of the audit trail").
 * Empty values can be dropped (an empty form field means "no filter"). The audit trail and the change feed
 * read their filters with it.
 */
export function parseStrictQuery<T>(
  schema: z.ZodType<T>,
  params: URLSearchParams,
  names: { title: string; of: string },
  dropEmpty = false,
): T {
  const values: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in values) throw invalidQuery(names.title, { [shown(key)]: 'is given more than once' });
    if (!dropEmpty || value.trim() !== '') values[key] = value;
  }
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const details = Object.fromEntries(
    parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? [issue.keys.map(shown).join(', '), `is not a filter of ${names.of}`]
        : [String(issue.path[0]), issue.message],
    ),
  );
  throw invalidQuery(names.title, details);
}

export function invalidQuery(title: string, details: Record<string, string>): AppError {
  return new AppError({
    code: 'INVALID_FILTERS',
    message: `${title}: ${Object.entries(details)
      .map(([key, problem]) => `${key} ${problem}`)
      .join('; ')}.`,
    details,
  });
}

/** A parameter's name as an answer may repeat it: a plain name as it is, anything else not echoed back. */
export const shown = (name: string) => (/^[A-Za-z][\w.-]{0,39}$/.test(name) ? name : '(a parameter name not shown)');
