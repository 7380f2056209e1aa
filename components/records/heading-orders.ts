/** The columns whose heading orders the whole set (from the portal's index: lib/records/search.ts), by what. */
export const HEADING_ORDERS: Record<string, string> = {
  eventDate: 'eventDate',
  competition: 'sport',
  odds: 'odds',
  probability: 'probability',
  status: 'status',
  result: 'result',
  publishedAt: 'published',
};

/** The whole set's order as the address holds it, and the address of each order a heading offers. */
export interface TableOrder {
  by: string | null;
  dir: 'asc' | 'desc';
  /** The address of the whole set ordered by `sort` (a HEADING_ORDERS value) in `dir`. */
  hrefs: Record<string, { asc: string; desc: string }>;
}

const MOVES = ['page', 'cursor', 'trail', 'sort', 'dir'];

/** The headings' orders for a records page at `params`: each keeps the filters and the search, from the first page. */
export function tableOrder(pathname: string, params: URLSearchParams, by: string | null, dir: 'asc' | 'desc'): TableOrder {
  const kept = [...params].filter(([key]) => !MOVES.includes(key));
  const href = (sort: string, d: 'asc' | 'desc') => `${pathname}?${new URLSearchParams([...kept, ['sort', sort], ['dir', d]]).toString()}`;
  return {
    by,
    dir,
    hrefs: Object.fromEntries(Object.values(HEADING_ORDERS).map((sort) => [sort, { asc: href(sort, 'asc'), desc: href(sort, 'desc') }])),
  };
}
