import 'server-only';
import { parseFilters } from '../picks-api/filters';
import { licenceOrNull } from '../picks-api/portal';
import { allowedBy, findInIndex, parseSearch } from '../records/search';
import { picksApi } from '../picks-api';
import { fromStore } from '../store';
import { latestChanges } from '../store/changes';
import { parseChangeQuery } from '../changes/query';
import { claimWalkSlot } from '../walk-slots';
import { filterProblems, filterVocabulary } from './filter-rules';
import { DELIVERY_KINDS, invalidDelivery, runFilters, type DeliveryKind } from './input';
import type { z } from 'zod';
import type { previewSchema } from '../vocabulary/delivery-run';

/**
 * How many records a delivery's filters match now, before it is saved: the first pages of the same walk
 * a run makes (at most PREVIEW_PAGES of 200), so "0" shows a delivery that would send empty files and
 * "more than 1,000" is said as such. For `changes`, the entries of the last 7 days that match.
 */

export const PREVIEW_PAGES = 5;
const PAGE = 200;

export type Preview = z.infer<typeof previewSchema>;

export async function previewDelivery(params: URLSearchParams, user: string, signal?: AbortSignal): Promise<Preview> {
  const asked = params.get('kind') ?? 'picks';
  if (!(DELIVERY_KINDS as readonly string[]).includes(asked)) throw invalidDelivery({ kind: 'must be picks, results or changes' });
  const kind = asked as DeliveryKind;
  const filters = Object.fromEntries([...params].filter(([key, value]) => key !== 'kind' && value.trim() !== ''));
  const now = Date.now();
  const problems = filterProblems(kind, filters, await filterVocabulary(), now);
  if (Object.keys(problems).length > 0) throw invalidDelivery(problems);
  const resolved = runFilters(kind, filters, now);
  if (kind === 'changes') {
    const since = new Date(now - 7 * 86_400_000).toISOString();
    const query = parseChangeQuery(new URLSearchParams({ ...resolved, since }), 'download');
    const found = await fromStore((db) => latestChanges(db, query, PREVIEW_PAGES * PAGE + 1));
    const more = found.length > PREVIEW_PAGES * PAGE;
    return {
      kind,
      filters: resolved,
      records: Math.min(found.length, PREVIEW_PAGES * PAGE),
      more,
      counted: 'changes detected in the last 7 days',
    };
  }
  const parsed = parseFilters(kind === 'picks' ? 'picks' : 'results', new URLSearchParams(resolved));
  if (!parsed.ok) throw parsed.error;
  // A searched or ordered set is counted in the portal's index, as its runs will write it.
  const search = parseSearch(new URLSearchParams(resolved));
  if (search.q?.trim() || search.sort) {
    const found = await findInIndex(kind, { ...parsed.filters, limit: 1 }, search, allowedBy(await licenceOrNull()));
    return { kind, filters: resolved, records: found.total, more: false, counted: `${kind} in the portal’s index now` };
  }
  const release = await claimWalkSlot(user);
  try {
    const api = picksApi();
    let records = 0;
    let cursor: string | undefined;
    for (let page = 0; page < PREVIEW_PAGES; page += 1) {
      const filtersOfPage = { ...parsed.filters, limit: PAGE, ...(cursor ? { cursor } : {}) };
      const list = kind === 'picks' ? await api.listPicks(filtersOfPage, { signal }) : await api.listResults(filtersOfPage, { signal });
      records += list.data.length;
      cursor = list.page?.hasMore && list.page.nextCursor ? list.page.nextCursor : undefined;
      if (!cursor) return { kind, filters: resolved, records, more: false, counted: `${kind} matching now` };
    }
    return { kind, filters: resolved, records, more: true, counted: `${kind} matching now (the first ${PREVIEW_PAGES} pages)` };
  } finally {
    release();
  }
}
