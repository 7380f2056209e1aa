import { cookies } from 'next/headers';
import { settle } from '@/lib/errors';
import { PREFERENCE_COOKIES } from '@/lib/vocabulary/preferences';
import type { FilterKind, PickFilters } from '@/lib/filters';
import { decodeTrail, pageNumberOf } from '@/lib/paging';
import { DEFAULT_PAGE_SIZE } from '@/lib/filters';
import { plural } from '@/lib/plural';
import { CountAll } from '@/components/records/count-all';
import { detectProbabilityScale } from '@/lib/picks-api/pick-view';
import { getRecordsPage } from '@/lib/picks-api/portal';
import { ErrorPanel } from '@/components/error-panel';
import { Pager } from '@/components/records/pager';
import { RecordsTable } from '@/components/records/records-table';

/** One page of picks or results for the filters: the table, or the error, never an empty table for an error. */
export async function RecordsView({ kind, filters, params }: { kind: FilterKind; filters: PickFilters; params: URLSearchParams }) {
  const pathname = kind === 'picks' ? '/picks' : '/results';
  const [page, jar] = await Promise.all([settle(getRecordsPage(kind, filters)), cookies()]);
  const here = `${pathname}?${params.toString()}`;
  if (!page.ok) return <ErrorPanel error={page.error.toJSON()} retryHref={here} />;

  const trail = decodeTrail(params.get('trail') ?? undefined);
  const { rows, hasMore, requestId } = page.value;
  const offered = hasMore ? page.value.nextCursor : null;
  // A cursor we have already been given would lead in a circle: say so instead of offering Next forever.
  const circular = offered !== null && (offered === filters.cursor || trail.includes(offered));
  const scale = detectProbabilityScale(rows.map((r) => r.probability));
  const pager = <Pager pathname={pathname} params={params} cursor={filters.cursor} trail={trail} nextCursor={circular ? null : offered} />;
  // Where this page sits: known when it was reached by the pager (its trail), not from a shared cursor alone.
  const size = filters.limit ?? DEFAULT_PAGE_SIZE;
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
      {rows.some((r) => r.probability !== null) && (
        <span className="ml-1 text-xs text-slate-500" data-testid="probability-note">
          Probability shown as a percentage (sent on a {scale === 'unit' ? '0–1' : '0–100'} scale).
        </span>
      )}
    </p>
  );

  return (
    <section aria-label={kind === 'picks' ? 'Picks' : 'Results'} className="space-y-3">
      {circular && (
        <p role="alert" data-testid="circular-cursor" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          The Picks API offered a next page it has already given; paging stops here (request {requestId ?? 'unknown'}).
        </p>
      )}
      {hasMore && !offered && (
        <p role="alert" data-testid="missing-cursor" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          The Picks API says there are more records but gave no way to reach them (request {requestId ?? 'unknown'}).
        </p>
      )}
      {rows.length === 0 ? (
        <>
          {count}
          <div className="rounded-lg border border-dashed border-slate-300 bg-white p-10 text-center" data-testid="empty-state">
            <p className="font-medium">No records match these filters.</p>
            <p className="mt-1 text-sm text-slate-600">The licence delivered nothing for them. Widen the dates or clear a filter.</p>
          </div>
        </>
      ) : (
        <RecordsTable
          rows={rows}
          scale={scale}
          caption={`${kind === 'picks' ? 'Picks' : 'Results'} matching the filters, this page`}
          density={jar.get(PREFERENCE_COOKIES.density)?.value === 'comfortable' ? 'comfortable' : 'compact'}
          toolbar={
            <>
              {count}
              <CountAll kind={kind} query={params.toString()} />
              <div className="ml-auto">{pager}</div>
            </>
          }
        />
      )}
      <div className="flex justify-end">{pager}</div>
    </section>
  );
}
