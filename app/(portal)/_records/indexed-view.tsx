import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { settle, AppError } from '@/lib/errors';
import type { FilterKind, PickFilters } from '@/lib/picks-api/filters';
import { plural } from '@/lib/plural';
import { detectProbabilityScale } from '@/lib/picks-api/pick-view';
import { licenceOrNull } from '@/lib/picks-api/portal';
import { parseSearch, searchRecords } from '@/lib/records/search';
import { hiddenColumnsOf, PREFERENCE_COOKIES } from '@/lib/vocabulary/preferences';
import { ErrorPanel } from '@/components/error-panel';
import { RecordsTable } from '@/components/records/records-table';
import { tableOrder } from '@/components/records/heading-orders';
import { OrderForm, SORT_CHOICES } from '@/components/records/order-form';
import { PortalLink } from '@/components/portal-link';
import { UtcTime } from '@/components/utc-time';
import { EmptyState } from '@/components/ui/card';

/**
 * /picks and /results with a search or an order of the whole set (`?q=`, `?sort=`): a page of the whole filtered set
 * from the portal's index of the licensed set (lib/records/search.ts), any page by number, the total at once, and
 * how fresh the index is. Without them the page reads the API live (./records-view.tsx).
 */
export async function IndexedView({
  kind,
  filters,
  params,
  exportControl,
}: {
  kind: FilterKind;
  filters: PickFilters;
  params: URLSearchParams;
  /** Exporting every record of the searched set, in its order (for those who may). */
  exportControl?: ReactNode;
}) {
  const pathname = kind === 'picks' ? '/picks' : '/results';
  let search;
  try {
    search = parseSearch(params);
  } catch (error) {
    return <ErrorPanel error={(error as AppError).toJSON()} retryHref={pathname} />;
  }
  const [found, jar] = await Promise.all([
    settle(licenceOrNull().then((licence) => searchRecords(kind, filters, search, licence))),
    cookies(),
  ]);
  if (!found.ok) return <ErrorPanel error={found.error.toJSON()} retryHref={`${pathname}?${params.toString()}`} />;
  const { rows, total, page, lastPage, size, sort, words, freshness } = found.value;
  const at = (n: number) => {
    const next = new URLSearchParams(params);
    next.delete('cursor');
    next.delete('trail');
    next.set('page', String(n));
    return `${pathname}?${next.toString()}`;
  };
  const first = (page - 1) * size + 1;
  const live = `${pathname}?${new URLSearchParams([...params].filter(([key]) => !['q', 'sort', 'dir', 'page'].includes(key))).toString()}`;
  const sortedBy = SORT_CHOICES.find((c) => c.value === sort.by)?.label ?? sort.by;
  const pager = (id: string) => (
    <nav aria-label={`Pages (${id})`} className="flex flex-wrap items-center gap-2 text-sm" data-testid={`index-pager-${id}`}>
      {page > 1 && <PortalLink href={at(1)}>First</PortalLink>}
      {page > 1 && (
        <PortalLink href={at(page - 1)} rel="prev">
          Previous
        </PortalLink>
      )}
      <span data-testid="index-page">
        Page {page.toLocaleString('en-GB')} of {lastPage.toLocaleString('en-GB')}
      </span>
      {page < lastPage && (
        <PortalLink href={at(page + 1)} rel="next">
          Next
        </PortalLink>
      )}
      {page < lastPage && <PortalLink href={at(lastPage)}>Last</PortalLink>}
    </nav>
  );
  return (
    <section aria-label={kind === 'picks' ? 'Picks found' : 'Results found'} className="space-y-3">
      <p className="text-sm text-slate-600" data-testid="index-freshness">
        From the portal’s index of the licensed set ({plural(freshness.records, 'record')}), as of the poll at{' '}
        <UtcTime iso={freshness.lastPollAt} /> (followed <UtcTime iso={freshness.indexedAt} />
        );{' '}
        {freshness.walkedAt ? (
          <>
            records outside the feed’s window as of the whole walk at <UtcTime iso={freshness.walkedAt} />.
          </>
        ) : (
          <>the whole licensed set has not been walked yet: records outside the feed’s window are in it only as exports have seen them.</>
        )}{' '}
        Sorted by {sortedBy.toLowerCase()}, {sort.dir === 'asc' ? 'ascending' : 'descending'}, over the whole set.
        {freshness.startedOverAt && (
          <>
            {' '}
            The licence’s content mode changed at <UtcTime iso={freshness.startedOverAt} />: the index holds only records read since.
          </>
        )}
      </p>
      {rows.length === 0 ? (
        <EmptyState large testId="empty-state">
          {freshness.records === 0 ? (
            <>
              The index of the licensed set holds nothing yet: it fills as the change feed polls (within a minute of the start) and as
              exports and deliveries read records. Meanwhile the{' '}
              <PortalLink href={live} className="underline">
                table read live from the API
              </PortalLink>{' '}
              has these filters.
            </>
          ) : (
            <>No record in the index matches {words.length > 0 ? `“${words.join(' ')}” with ` : ''}these filters.</>
          )}
        </EmptyState>
      ) : (
        <RecordsTable
          rows={rows}
          scale={detectProbabilityScale(rows.map((r) => r.probability))}
          caption={`${kind === 'picks' ? 'Picks' : 'Results'} found in the index, page ${page} of ${lastPage}`}
          density={jar.get(PREFERENCE_COOKIES.density)?.value === 'comfortable' ? 'comfortable' : 'compact'}
          hiddenColumns={hiddenColumnsOf(jar.get(PREFERENCE_COOKIES.columns)?.value)}
          marked={words}
          order={tableOrder(pathname, params, sort.by === 'relevance' ? null : sort.by, sort.dir)}
          toolbar={
            <>
              <p className="text-slate-700" data-testid="record-count">
                <span className="font-medium">
                  Records {first.toLocaleString('en-GB')}–{(first + rows.length - 1).toLocaleString('en-GB')} of{' '}
                  {total.toLocaleString('en-GB')}
                </span>
              </p>
              <OrderForm
                pathname={pathname}
                kept={Object.fromEntries([...params].filter(([key]) => !['sort', 'dir', 'page', 'cursor', 'trail'].includes(key)))}
                sort={sort.by}
                dir={sort.dir}
              />
              <div className="ml-auto flex flex-wrap items-center gap-2">
                {exportControl}
                {pager('top')}
              </div>
            </>
          }
        />
      )}
      {(rows.length > 0 || page > 1) && <div className="flex justify-end">{pager('bottom')}</div>}
    </section>
  );
}
