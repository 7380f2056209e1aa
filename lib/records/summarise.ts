import 'server-only';
import { withoutPaging, type FilterKind, type PickFilters } from '../picks-api/filters';
import { picksApi } from '../picks-api';
import { createSummary } from './summary';

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

type WholeSet = Omit<PickFilters, 'limit' | 'cursor'>;

/**
 * One answer per set of filters for FRESH_MS, shared by everyone who asks: the first asker's walk, kept
 * while it runs and for a minute after; a walk that fails is forgotten at once. At most KEPT sets are kept
 * (the oldest go first: a Map keeps insertion order).
 */
function sharedForAMinute<T>(walkOf: (kind: FilterKind, set: WholeSet) => Promise<T>) {
  const kept = new Map<string, { at: number; answer: Promise<T> }>();
  return (kind: FilterKind, filters: PickFilters, now = Date.now()): Promise<T> => {
    const set = withoutPaging(filters);
    const key = `${kind}:${JSON.stringify(Object.entries(set).sort(([a], [b]) => a.localeCompare(b)))}`;
    const known = kept.get(key);
    if (known && now - known.at < FRESH_MS) return known.answer;
    const answer = walkOf(kind, set);
    kept.set(key, { at: now, answer });
    answer.catch(() => kept.get(key)?.answer === answer && kept.delete(key));
    for (const [old] of kept) if (kept.size > KEPT) kept.delete(old);
    return answer;
  };
}

export const summariseRecords = sharedForAMinute(walk);

async function walk(kind: FilterKind, filters: WholeSet) {
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

/**
 * The total of a filtered set (every page walked, no cap), shared like the summaries: the records pages ask
 * for it in the background on every view, so many people on the same filters cost one walk a minute.
 */
export const countRecords = sharedForAMinute(count);

async function count(kind: FilterKind, filters: WholeSet) {
  const api = picksApi();
  const signal = AbortSignal.timeout(WALK_TIMEOUT_MS);
  let records = 0;
  for await (const _record of kind === 'picks' ? api.walkPicks(filters, { signal }) : api.walkResults(filters, { signal })) records += 1;
  return { records, countedAt: new Date().toISOString() };
}
