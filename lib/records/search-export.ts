import 'server-only';
import { AppError, type Settled } from '../errors';
import type { FilterKind, PickFilters } from '../picks-api/filters';
import type { PickList } from '../picks-api';
import type { Licence } from '../picks-api/portal';
import type { Pick } from '../picks-api/schemas';
import { fromStore } from '../store';
import { indexedBodies } from '../store/record-index';
import { searchIndexed, type IndexHit } from '../store/record-search';
import { allowedBy, indexState, recordOfBody, searchWords, sortOf, whereOf, type Allowed, type SearchParams } from './search';

/**
 * A searched or ordered set as an export writes it: every record the page would show, across all its pages, in its
 * order. The order is taken once at the start (the records' ids and versions), then the bodies are read a page at a
 * time, so a file is one consistent set even while the index moves, and its records are exactly those the pages
 * showed as of that moment.
 */

const PAGE = 200;
const WHOLE = 10_000_000;

/** The set's pages as the export writer takes them (the API's envelope, with no request id: no upstream was asked). */
export async function* searchedPages(
  kind: FilterKind,
  filters: Omit<PickFilters, 'limit' | 'cursor'>,
  search: SearchParams,
  allowed: Allowed,
): AsyncGenerator<PickList> {
  const words = searchWords(search.q);
  const sort = sortOf(search, words);
  const hits: IndexHit[] = await fromStore(async (db) => {
    await indexState(db, allowed);
    return (await searchIndexed(db, { ...whereOf(kind, filters, words, allowed), sort, offset: 0, limit: WHOLE })).hits;
  });
  if (hits.length === 0) {
    yield { data: [], page: { nextCursor: null, hasMore: false }, requestId: null };
    return;
  }
  for (let at = 0; at < hits.length; at += PAGE) {
    const slice = hits.slice(at, at + PAGE);
    const bodies = await fromStore((db) =>
      indexedBodies(
        db,
        slice.map((hit) => hit.digest),
      ),
    );
    // A record the pages showed but whose version is gone fails the file: never a shorter file that looks whole.
    const data: Pick[] = slice.map((hit) => {
      const record = recordOfBody(bodies.get(hit.digest));
      if (!record)
        throw new AppError({
          code: 'INTERNAL',
          message: `Record ${hit.pickId} changed in the index while the file was written. Export again.`,
        });
      return record;
    });
    const more = at + PAGE < hits.length;
    yield { data, page: { nextCursor: more ? String(at + PAGE) : null, hasMore: more }, requestId: null };
  }
}

/**
 * The pages of a planned file that holds a searched or ordered set, read from the index within the licence in force;
 * undefined for a plan that walks the upstream. A search with no licence read is refused (never an empty file).
 */
export function searchedPagesOf(
  plan: { kind: FilterKind; filters: Omit<PickFilters, 'limit' | 'cursor'>; search: SearchParams | null },
  licence: Settled<Licence>,
): AsyncGenerator<PickList> | undefined {
  if (!plan.search) return undefined;
  if (!licence.ok) throw licence.error;
  return searchedPages(plan.kind, plan.filters, plan.search, allowedBy(licence.value.summary));
}
