import { invalidFields } from '../errors';
import { exampleDay } from '../time';
import { RECORD_FORMATS, type FileFormat, type RecordFormat } from '../vocabulary/formats';
import { parsePickFilters, pickFilterProblems, toUtcInstant, type SearchParamsInput } from '../picks-api/filters';
import type { HistoryFilters } from '../store/history-at';

/**
 * What /history and GET /api/history are asked: the set at a moment (`asOf` with the picks filters, whose
 * `from`/`to` bound the event date), or the difference between two moments (`from` and `to` are then the
 * moments, with sport/league/status/result). Every wrong field is named at once; nothing is read before.
 */

export type HistoryQuery =
  | { mode: 'asOf'; asOfMs: number; filters: HistoryFilters; format: RecordFormat | null; sent: Record<string, string> }
  | { mode: 'diff'; fromMs: number; toMs: number; filters: HistoryFilters; format: FileFormat | null; sent: Record<string, string> };

const first = (input: SearchParamsInput, key: string): string | undefined => {
  const value = input instanceof URLSearchParams ? input.get(key) : input[key];
  const one = Array.isArray(value) ? value[0] : value;
  return one === null || one === undefined || one.trim() === '' ? undefined : one.trim();
};

/** A moment: an ISO 8601 timestamp (or a UTC day, meaning its start), not in the future, not before `sinceMs`. */
function moment(value: string, name: string, now: number, sinceMs: number | null, problems: Record<string, string>): number {
  const iso = toUtcInstant(value, 'from');
  if (iso === null) {
    problems[name] = `must be an ISO 8601 timestamp (UTC), such as ${exampleDay(-1)}T18:00:00Z`;
    return NaN;
  }
  const ms = Date.parse(iso);
  if (ms > now) problems[name] = `is in the future (now is ${new Date(now).toISOString()}): the history knows only what has been seen`;
  else if (sinceMs === null) problems[name] = 'is before anything was recorded: the portal has not kept any record yet';
  else if (ms < sinceMs)
    problems[name] =
      `is before ${new Date(sinceMs).toISOString()}, when the portal's history begins: it cannot vouch for an earlier moment`;
  return ms;
}

export function parseHistoryQuery(input: SearchParamsInput, now: number, sinceMs: number | null, needFormat: boolean): HistoryQuery {
  const problems: Record<string, string> = {};
  const sent: Record<string, string> = {};
  for (const key of ['asOf', 'from', 'to', 'sport', 'league', 'status', 'result', 'format']) {
    const value = first(input, key);
    if (value !== undefined) sent[key] = value;
  }
  const format =
    sent.format === undefined
      ? null
      : (RECORD_FORMATS as readonly string[]).includes(sent.format)
        ? (sent.format as RecordFormat)
        : undefined;
  if (format === undefined) problems.format = 'must be csv, json, jsonl or parquet';
  else if (format === null && needFormat) problems.format = 'is required: csv, json, jsonl or parquet';
  else if (format === 'parquet' && sent.asOf === undefined)
    problems.format = 'parquet is for the set at a moment (asOf); the difference between two moments is csv, json or jsonl';

  if (sent.asOf !== undefined) {
    const asOfMs = moment(sent.asOf, 'asOf', now, sinceMs, problems);
    // The picks filters, from/to being the event date as on /picks.
    const picksFilters = Object.fromEntries(Object.entries(sent).filter(([key]) => !['asOf', 'format'].includes(key)));
    Object.assign(problems, pickFilterProblems(picksFilters));
    const parsed = parsePickFilters(picksFilters);
    if (Object.keys(problems).length > 0) throw invalidFields('history request', problems);
    const { sport, league, status, result, from, to } = parsed.ok ? parsed.filters : {};
    return { mode: 'asOf', asOfMs, filters: { sport, league, status, result, from, to }, format: format ?? null, sent };
  }
  if (sent.from === undefined && sent.to === undefined) problems.asOf = 'is required: a moment (asOf), or two (from and to)';
  if ((sent.from === undefined) !== (sent.to === undefined))
    problems[sent.from === undefined ? 'from' : 'to'] = 'is required with the other';
  const fromMs = sent.from === undefined ? NaN : moment(sent.from, 'from', now, sinceMs, problems);
  const toMs = sent.to === undefined ? NaN : moment(sent.to, 'to', now, sinceMs, problems);
  if (!problems.from && !problems.to && fromMs >= toMs) problems.to = 'must be after from';
  const picksFilters = Object.fromEntries(Object.entries(sent).filter(([key]) => ['sport', 'league', 'status', 'result'].includes(key)));
  Object.assign(problems, pickFilterProblems(picksFilters));
  const parsed = parsePickFilters(picksFilters);
  if (Object.keys(problems).length > 0) throw invalidFields('history request', problems);
  const { sport, league, status, result } = parsed.ok ? parsed.filters : {};
  // Parquet was refused above for a difference.
  return { mode: 'diff', fromMs, toMs, filters: { sport, league, status, result }, format: (format as FileFormat | null) ?? null, sent };
}
