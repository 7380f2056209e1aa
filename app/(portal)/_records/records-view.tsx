import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { settle } from '@/lib/errors';
import { hiddenColumnsOf, PREFERENCE_COOKIES } from '@/lib/vocabulary/preferences';
import type { FilterKind, PickFilters } from '@/lib/picks-api/filters';
import { decodeTrail, pageNumberOf } from '@/lib/paging';
import { plural } from '@/lib/plural';
import { CountAll } from '@/components/records/count-all';
import { detectProbabilityScale } from '@/lib/picks-api/pick-view';
import { ErrorPanel } from '@/components/error-panel';
import { Pager } from '@/components/records/pager';
import { openRecordsPage, pageSizeOf, parsePageNumber } from '@/lib/records/jump';
import { AppError } from '@/lib/errors';
import { RecordsTable } from '@/components/records/records-table';
import { tableOrder } from '@/components/records/heading-orders';
import { PortalLink } from '@/components/portal-link';
import { indexTotalWithin } from '@/lib/records/facets';
import { licenceOrNull } from '@/lib/picks-api/portal';
import { Notice } from '@/components/ui/notice';
import { EmptyState } from '@/components/ui/card';

const invalidPage = (problem: string, sent: string) =>
  new AppError({ code: 'INVALID_FILTERS', message: `One or more filters are invalid: ${problem}.`, details: { page: sent } }).toJSON();

/** One page of picks or results for the filters: the table, or the error, never an empty table for an error. */
export async function RecordsView({
  kind,
  filters: asked,
  params,
  exportControl,
}: {
  kind: FilterKind;
  filters: PickFilters;
  params: URLSearchParams;
  /** Exporting every matching record (for those who may), beside the pager. */
  exportControl?: ReactNode;
}) {
  const pathname = kind === 'picks' ? '/picks' : '/results';
  // The whole set in an order of one's choosing is read from the portal's index (./indexed-view.tsx).
  const wholeSetOrder = `${pathname}?${new URLSearchParams([...[...params].filter(([key]) => !['cursor', 'trail', 'page'].includes(key)), ['sort', 'eventDate'], ['dir', 'desc']]).toString()}`;
  const here = `${pathname}?${params.toString()}`;
  const size = pageSizeOf(asked);
  // A page asked for by its number (?page=N) is walked to; a cursor from the pager wins over it.
  const number = parsePageNumber(params.get('page'));
  if (number.problem) return <ErrorPanel error={invalidPage(number.problem, params.get('page')!)} retryHref={pathname} />;
  const [opened, jar, indexed] = await Promise.all([
    settle(openRecordsPage(kind, asked, number.page)),
    cookies(),
    indexTotalWithin(kind, asked, licenceOrNull()),
  ]);
  if (!opened.ok) return <ErrorPanel error={opened.error.toJSON()} retryHref={here} />;
  const { jump, landed, filters, page } = opened.value;
  const trail = landed ? landed.trail : decodeTrail(params.get('trail') ?? undefined);
  const { rows, hasMore, requestId } = page;
  const offered = hasMore ? page.nextCursor : null;
  // A cursor we have already been given would lead in a circle: say so instead of offering Next forever.
  const circular = offered !== null && (offered === filters.cursor || trail.includes(offered));
  const scale = detectProbabilityScale(rows.map((r) => r.probability));
  const pagerAt = (id: 'top' | 'bottom') => (
    <Pager
      pathname={pathname}
      params={params}
      cursor={filters.cursor}
      trail={trail}
      nextCursor={circular ? null : offered}
      id={id}
      kind={kind}
      size={size}
    />
  );
  // Where this page sits: known when it was reached by the pager (its trail), not from a shared cursor alone.
  const pageNumber = pageNumberOf(filters.cursor, trail);
  const first = pageNumber === null ? null : (pageNumber - 1) * size + 1;
  const position =
    rows.length === 0
      ? 'No records'
      : first === null
        ? `${plural(rows.length, 'record')} on this page`
        : `Records ${first.toLocaleString('en-GB')}–${(first + rows.length - 1).toLocaleString('en-GB')}`;
  const count = (
    <p className="text-slate-700" data-testid="record-count">
      <span className="font-medium">{position}</span>
      {hasMore ? ', more on the next page' : rows.length > 0 ? ', the last of them' : ''}.
      {indexed && indexed.records > 0 && (
        <span data-testid="index-total">
          {' · '}
          <PortalLink
            href={wholeSetOrder}
            className="underline"
            title="Records the portal’s index holds for these filters: the whole set, any order"
          >
            {indexed.total.toLocaleString('en-GB')} in the index
          </PortalLink>
        </span>
      )}
    </p>
  );
  const notes = rows.some((r) => r.probability !== null) && (
    <span data-testid="probability-note">Probability is shown as a percentage (sent on a {scale === 'unit' ? '0–1' : '0–100'} scale).</span>
  );

  return (
    <section aria-label={kind === 'picks' ? 'Picks' : 'Results'} className="space-y-3">
      {jump?.to === 'past-the-end' && (
        <Notice tone="warning" role="status" testId="past-the-end">
          Page {number.page!.toLocaleString('en-GB')} is past the last page: these filters have {plural(jump.lastPage, 'page')} of {size}.
          This is the last one.
        </Notice>
      )}
      {jump?.to === 'too-far' && (
        <Notice tone="warning" role="status" testId="too-far">
          Page {number.page!.toLocaleString('en-GB')} is further in than the portal walks to (page {jump.furthest.toLocaleString('en-GB')}{' '}
          at {size} a page): narrow the dates, or take larger pages. This is the first page.
        </Notice>
      )}
      {circular && (
        <Notice tone="warning" role="alert" testId="circular-cursor">
          The Picks API offered a next page it has already given; paging stops here (request {requestId ?? 'unknown'}).
        </Notice>
      )}
      {hasMore && !offered && (
        <Notice tone="warning" role="alert" testId="missing-cursor">
          The Picks API says there are more records but gave no way to reach them (request {requestId ?? 'unknown'}).
        </Notice>
      )}
      {rows.length === 0 ? (
        <>
          {count}
          <EmptyState large testId="empty-state">
            <p className="font-medium">No records match these filters.</p>
            <p className="mt-1 text-sm text-slate-600">The licence delivered nothing for them. Widen the dates or clear a filter.</p>
          </EmptyState>
        </>
      ) : (
        <RecordsTable
          rows={rows}
          scale={scale}
          order={tableOrder(kind === 'picks' ? '/picks' : '/results', params, null, 'desc')}
          caption={`${kind === 'picks' ? 'Picks' : 'Results'} matching the filters, this page`}
          density={jar.get(PREFERENCE_COOKIES.density)?.value === 'comfortable' ? 'comfortable' : 'compact'}
          hiddenColumns={hiddenColumnsOf(jar.get(PREFERENCE_COOKIES.columns)?.value)}
          notes={notes}
          toolbar={
            <>
              {count}
              <CountAll kind={kind} query={params.toString()} />
              {/* With the index's total shown, that link is the way to the whole set in order. */}
              {!(indexed && indexed.records > 0) && (
                <PortalLink href={wholeSetOrder} className="text-sm underline" data-testid="order-whole-set">
                  Order the whole set
                </PortalLink>
              )}
              <div className="ml-auto flex flex-wrap items-center gap-2">
                {exportControl}
                {pagerAt('top')}
              </div>
            </>
          }
        />
      )}
      {/* An empty first page has nowhere to go: no pager (a later page keeps Previous and First). */}
      {(rows.length > 0 || filters.cursor) && <div className="flex justify-end">{pagerAt('bottom')}</div>}
    </section>
  );
}
