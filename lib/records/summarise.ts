import 'server-only';
import { withoutPaging, type FilterKind, type PickFilters } from '../filters';
import { picksApi } from '../picks-api';
import { createSummary, type RecordsSummary } from './summary';

/**
 * Summaries and totals of a filtered set, shared by everyone for a minute: the data is the licence's, not a person's,
 * so the overview's tiles and the /results summary of many people cost one walk a minute per set of
 * filters. Capped at SUMMARY_CAP records (the answer says when the set holds more). A walk that fails is
 * forgotten at once, so the next request tries again.
 */

export const SUMMARY_CAP = 5_000;
const FRESH_MS = 60_000;
const KEPT = 100;
/** A shared walk is nobody's request, so no request may cancel it; this bounds it instead. */
const WALK_TIMEOUT_MS = 120_000;

const recent = new Map<string, { at: number; summary: Promise<RecordsSummary & { summarisedAt: string }> }>();

export function summariseRecords(kind: FilterKind, filters: PickFilters, now = Date.now()) {
  const set = withoutPaging(filters);
  const key = `${kind}:${JSON.stringify(Object.entries(set).sort(([a], [b]) => a.localeCompare(b)))}`;
  const known = recent.get(key);
  if (known && now - known.at < FRESH_MS) return known.summary;
  const summary = walk(kind, set);
  recent.set(key, { at: now, summary });
  summary.catch(() => recent.get(key)?.summary === summary && recent.delete(key));
  for (const [old] of recent) if (recent.size > KEPT) recent.delete(old); // oldest first (insertion order)
  return summary;
}

async function walk(kind: FilterKind, filters: Omit<PickFilters, 'limit' | 'cursor'>) {
  const api = picksApi();
  const signal = AbortSignal.timeout(WALK_TIMEOUT_MS);
  const records = kind === 'picks' ? api.walkPicks(filters, { signal }) : api.walkResults(filters, { signal });
  const summary = createSummary(SUMMARY_CAP);
  let complete = true;
  for await (const record of records) {
    if (!summary.add(record)) {
      complete = false;
      break;
    }
  }
  return { ...summary.result(complete), summarisedAt: new Date().toISOString() };
}

const counted = new Map<string, { at: number; records: Promise<{ records: number; countedAt: string }> }>();

/**
 * The total of a filtered set (every page walked, no cap), shared like the summaries: the records pages ask
 * for it in the background on every view, so many people on the same filters cost one walk a minute.
 */
export function countRecords(kind: FilterKind, filters: PickFilters, now = Date.now()) {
  const set = withoutPaging(filters);
  const key = `${kind}:${JSON.stringify(Object.entries(set).sort(([a], [b]) => a.localeCompare(b)))}`;
  const known = counted.get(key);
  if (known && now - known.at < FRESH_MS) return known.records;
  const records = count(kind, set);
  counted.set(key, { at: now, records });
  records.catch(() => counted.get(key)?.records === records && counted.delete(key));
  for (const [old] of counted) if (counted.size > KEPT) counted.delete(old);
  return records;
}

async function count(kind: FilterKind, filters: Omit<PickFilters, 'limit' | 'cursor'>) {
  const api = picksApi();
  const signal = AbortSignal.timeout(WALK_TIMEOUT_MS);
  let records = 0;
  for await (const _record of kind === 'picks' ? api.walkPicks(filters, { signal }) : api.walkResults(filters, { signal })) records += 1;
  return { records, countedAt: new Date().toISOString() };
}
