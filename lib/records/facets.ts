import 'server-only';
import type { FilterKind, PickFilters } from '../picks-api/filters';
import { processSlot } from '../process-state';
import { fromStore } from '../store';
import { facetCounts, FACETS, type Facet } from '../store/record-search';
import { indexSize } from '../store/record-index';
import type { LicenceSummary } from '../vocabulary/licence';
import { waitHitBound } from '../waits';
import { allowedBy, countInIndex, indexState, searchWords, whereOf, type Allowed } from './search';

/**
 * Facets of the records pages, as Datasette shows them: for each filter (sport, league, status, result), how many
 * records of the current set — its other filters, its search words, the licence in force — each value holds, from
 * the portal's index. Counted once per question and index write, as the search's totals are.
 */

export interface FacetValues {
  name: Facet;
  values: { value: string; count: number }[];
}
export interface FacetAnswer {
  facets: FacetValues[];
  /** When the index last followed the record history (null: never). */
  indexedAt: string | null;
}

const SHOWN = 200;
/** How long a page waits for the counts before it shows its form without them. */
export const FACETS_WAIT_MS = 300;
const cache = () => processSlot<Map<string, FacetValues[]>>('recordFacets').once(() => new Map());

export function recordFacets(
  kind: FilterKind,
  filters: PickFilters,
  q: string | undefined,
  licence: LicenceSummary | null,
): Promise<FacetAnswer> {
  return facetsOf(kind, filters, q, allowedBy(licence));
}

/** The facets within what `allowed` says (the licence's, or narrowed further to a token's scope: lib/mcp). */
export async function facetsOf(kind: FilterKind, filters: PickFilters, q: string | undefined, allowed: Allowed): Promise<FacetAnswer> {
  const where = whereOf(kind, filters, searchWords(q), allowed);
  const names = FACETS.filter((name) => kind === 'picks' || name !== 'status');
  return fromStore(async (db) => {
    const { startedOverMs: startedOver, mark } = await indexState(db, allowed);
    const key = `${mark.write}\0${startedOver}\0${kind}\0${JSON.stringify(where)}`;
    const kept = cache();
    let facets = kept.get(key);
    if (!facets) {
      // An index that has not followed the history yet, or holds nothing, counts nothing: no "(0)" everywhere.
      if (mark.atMs === null || (await indexSize(db)) === 0) return { facets: [], indexedAt: null };
      facets = [];
      for (const name of names) facets.push({ name, values: await facetCounts(db, where, name, SHOWN) });
      if (kept.size >= 500) kept.clear();
      kept.set(key, facets);
    }
    return { facets, indexedAt: mark.atMs === null ? null : new Date(mark.atMs).toISOString() };
  });
}

/** Each filter's values and the records they hold, as the records pages' form shows them in its options. */
export type FacetCounts = Partial<Record<Facet, Record<string, number>>>;

/** `work`'s answer, or null when it fails or takes longer than FACETS_WAIT_MS (it goes on, and its count is kept). */
async function withinWait<T>(work: Promise<T>): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      waitHitBound('facets');
      resolve(null);
    }, FACETS_WAIT_MS);
  });
  try {
    return await Promise.race([work.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The facets of a records page, or null when they could not be counted within FACETS_WAIT_MS (the form shows
 * without counts) or at all.
 */
export function facetsWithin(
  kind: FilterKind,
  filters: PickFilters,
  q: string | undefined,
  licence: Promise<LicenceSummary | null>,
): Promise<FacetCounts | null> {
  return withinWait(
    licence
      .then((summary) => recordFacets(kind, filters, q, summary))
      .then((answer) =>
        Object.fromEntries(answer.facets.map((f) => [f.name, Object.fromEntries(f.values.map((v) => [v.value, v.count]))])),
      ),
  );
}

/**
 * How many records the portal's index holds for these filters within the licence, or null when not counted within
 * FACETS_WAIT_MS: the live table states it at once beside the page it read from the API.
 */
export function indexTotalWithin(
  kind: FilterKind,
  filters: PickFilters,
  licence: Promise<LicenceSummary | null>,
): Promise<{ total: number; records: number } | null> {
  return withinWait(licence.then((summary) => countInIndex(kind, filters, allowedBy(summary))));
}
