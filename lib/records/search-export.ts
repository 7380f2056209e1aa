import 'server-only';
import { AppError } from '../errors';
import type { FilterKind, PickFilters } from '../filters';
import type { PickList } from '../picks-api';
import { pickSchema, type Pick } from '../picks-api/schemas';
import { fromStore } from '../store';
import { indexedBodies } from '../store/record-index';
import { searchIndexed, SORTABLE, type IndexHit, type SortColumn } from '../store/record-search';
import { followContentMode } from './index-keeper';
import { searchWords, whereOf, type Allowed, type SearchParams } from './search';

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
  const by = (search.sort as SortColumn | 'relevance' | undefined) ?? (words.length > 0 ? 'relevance' : 'eventDate');
  const sort = { by: by in SORTABLE || by === 'relevance' ? by : 'eventDate', dir: search.dir ?? 'desc' } as const;
  const hits: IndexHit[] = await fromStore(async (db) => {
    if (allowed.contentMode !== undefined) await followContentMode(db, allowed.contentMode);
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
      const body = bodies.get(hit.digest);
      const parsed = body ? pickSchema.safeParse(JSON.parse(body)) : null;
      if (!parsed?.success)
        throw new AppError({
          code: 'INTERNAL',
          message: `Record ${hit.pickId} changed in the index while the file was written. Export again.`,
        });
      return parsed.data;
    });
    const more = at + PAGE < hits.length;
    yield { data, page: { nextCursor: more ? String(at + PAGE) : null, hasMore: more }, requestId: null };
  }
}
