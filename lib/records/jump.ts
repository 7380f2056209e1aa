import 'server-only';
import { DEFAULT_PAGE_SIZE, type FilterKind, type PickFilters } from '../picks-api/filters';
import { getRecordsPage, type RecordsPage } from '../picks-api/portal';
import { JUMP_MAX_PAGES } from '../paging';

export { JUMP_MAX_PAGES };

/**
 * Opening page N of a cursor walk (`?page=N` on /picks and /results): the API has no page numbers, so the
 * pages before it are read one after another, each cursor kept as the pager's trail. A number past the last
 * page says where the records end; one further in than JUMP_MAX_PAGES pages is not walked past that page
 * (each page read is a request to the upstream).
 */

export type Jump =
  | { to: 'page'; cursor: string | undefined; trail: string[] }
  /** `page`: the last page, already read (not asked of the upstream again). */
  | { to: 'past-the-end'; lastPage: number; cursor: string | undefined; trail: string[]; page: RecordsPage }
  | { to: 'too-far'; furthest: number };

/** Where page `page` (1-based) of these filters starts, at `size` records a page. */
export async function jumpToPage(kind: FilterKind, filters: PickFilters, page: number, size: number): Promise<Jump> {
  let cursor: string | undefined;
  const trail: string[] = [];
  // Page JUMP_MAX_PAGES is read too when asked for more: it says whether the records end there.
  const last = Math.min(page, JUMP_MAX_PAGES + 1);
  for (let at = 1; at < last; at += 1) {
    const read = await getRecordsPage(kind, { ...filters, limit: size, cursor });
    const next = read.hasMore ? read.nextCursor : null;
    // No next page (or one already given: a circle) is the end of the records.
    if (!next || next === cursor || trail.includes(next)) return { to: 'past-the-end', lastPage: at, cursor, trail, page: read };
    trail.push(cursor ?? '');
    cursor = next;
  }
  return page > JUMP_MAX_PAGES ? { to: 'too-far', furthest: JUMP_MAX_PAGES } : { to: 'page', cursor, trail };
}

/** `?page=` as a number from 1, or null when it is absent; a wrong one is a problem in words. */
export function parsePageNumber(value: string | null): { page: number | null; problem: string | null } {
  if (value === null || value.trim() === '') return { page: null, problem: null };
  if (!/^\d{1,7}$/.test(value.trim()) || Number(value) < 1) return { page: null, problem: 'page must be a whole number from 1' };
  return { page: Number(value), problem: null };
}

/** The records a page holds: the size asked, or the portal's own default (never the upstream's, which may differ). */
export const pageSizeOf = (filters: PickFilters) => filters.limit ?? DEFAULT_PAGE_SIZE;

export interface OpenedPage {
  /** How page N was walked to (null: no page number asked, or a cursor given). */
  jump: Jump | null;
  /** The jump when it landed on a page (its cursor and trail). */
  landed: Extract<Jump, { to: 'page' | 'past-the-end' }> | null;
  /** The filters the page was read with: the cursor landed on, and always the page size counted with. */
  filters: PickFilters;
  page: RecordsPage;
}

/**
 * The page /picks and /results show: page `page` when asked by its number (walked to), else the one the filters'
 * cursor names. Every read asks the upstream for the page size the portal counts with, so page N by number holds
 * records (N-1)×size+1 onwards whatever the upstream's own default page (the spec leaves it unstated).
 */
export async function openRecordsPage(kind: FilterKind, asked: PickFilters, page: number | null): Promise<OpenedPage> {
  const size = pageSizeOf(asked);
  const jump = page !== null && !asked.cursor ? await jumpToPage(kind, asked, page, size) : null;
  const landed = jump?.to === 'page' || jump?.to === 'past-the-end' ? jump : null;
  const filters = { ...asked, ...(landed ? { cursor: landed.cursor } : {}), limit: size };
  const read = landed?.to === 'past-the-end' ? landed.page : await getRecordsPage(kind, filters);
  return { jump, landed, filters, page: read };
}
