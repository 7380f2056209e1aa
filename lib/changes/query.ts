import { z } from 'zod';
import { FILE_FORMATS, type FileFormat } from '../vocabulary/formats';
import { DAY as day, instant, invalidQuery, parseStrictQuery } from '../strict-query';
import type { ChangeQuery } from '../store/changes';
import { CHANGE_KINDS } from './reconcile';

/**
 * The change feed's filters, from a URL: the one parser for /changes and GET /api/changes. Unknown
 * names, repeated names and bad values are a 400 naming each. `since` is exclusive (a consumer passes
 * the last detectedAt it has), `until` inclusive; a UTC day in `until` includes that whole day.
 */

const name = z.string().trim().min(1).max(200);

const shape = {
  kind: z.enum(CHANGE_KINDS, { error: `must be one of ${CHANGE_KINDS.join(', ')}` }).optional(),
  sport: name.optional(),
  league: name.optional(),
  since: instant.optional(),
  until: instant.optional(),
};
const pageSchema = z.strictObject({
  ...shape,
  /** "Since my last visit": the page fills `since` from the person's visits. */
  visit: z.literal('1', { error: 'must be 1' }).optional(),
  before: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  /** Set by the "Poll now" button's redirect: how the request went (shown, not a filter). */
  polled: z.enum(['started', 'running', 'requested', 'refused', 'store', 'failed']).optional(),
  /** With `polled`: when the poll was asked for (ms), so that the page knows when it has ended. */
  at: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
});
const downloadSchema = z.strictObject({ ...shape, format: z.enum(FILE_FORMATS).optional() });

export type ChangeFilters = ChangeQuery & { visit?: boolean; format?: FileFormat };

export function parseChangeQuery(params: URLSearchParams, use: 'page' | 'download'): ChangeFilters {
  const parsed = parseStrictQuery<z.infer<typeof pageSchema> & { format?: FileFormat }>(
    use === 'page' ? pageSchema : downloadSchema,
    params,
    { title: 'Invalid change filters', of: 'the change feed' },
    true,
  );
  const { since, until, visit, polled: _polled, at: _at, ...rest } = parsed;
  const untilIso = until && (day.test(until) ? new Date(Date.parse(until) + 86_400_000 - 1).toISOString() : new Date(until).toISOString());
  const sinceIso = since && new Date(since).toISOString();
  if (sinceIso && untilIso && sinceIso >= untilIso) throw invalidQuery('Invalid change filters', { until: 'must be after since' });
  return { ...rest, since: sinceIso, until: untilIso, visit: visit === '1' };
}
