import { Suspense } from 'react';
import type { Session } from 'next-auth';
import { can } from '@/lib/vocabulary/roles';
import { parseFilters, sentFilterValues, wholeSetFilterValues, type FilterKind, type PageSearchParams } from '@/lib/picks-api/filters';
import { toSearchParams } from '@/lib/paging';
import { licenceVocabulary } from '@/lib/deliveries/filter-rules';
import { ErrorPanel } from '@/components/error-panel';
import { ExportControl } from '@/components/records/export-control';
import { FilterForm } from '@/components/records/filter-form';
import { RecordsView } from './records-view';
import { IndexedView } from './indexed-view';
import { facetsWithin } from '@/lib/records/facets';
import { licenceOrNull } from '@/lib/picks-api/portal';
import { SearchForm } from '@/components/records/search-form';
import { ResultsSummary } from '@/components/records/results-summary';
import { TableSkeleton } from '@/components/records/table-skeleton';
import { PageHeader } from '@/components/ui/page-header';
import { PortalLink } from '@/components/portal-link';
import { datePresets, presetHref } from '@/lib/date-presets';
import { DATE_HINT } from '@/components/records/filter-form';

/** The shared body of /picks and /results: filters from the URL, then the table (streamed in behind a skeleton). */
export async function RecordsPage({
  kind,
  searchParams,
  title,
  intro,
  session,
}: {
  kind: FilterKind;
  searchParams: PageSearchParams;
  title: string;
  intro: string;
  session: Session;
}) {
  const params = toSearchParams(searchParams);
  const parsed = parseFilters(kind, params);
  // Sport and league choices come from the licence when /me names them; free text otherwise.
  const vocabulary = await licenceVocabulary();
  const wholeSet = new URLSearchParams(wholeSetFilterValues(kind, params)).toString();
  const pathname = kind === 'picks' ? '/picks' : '/results';
  // A search or an order of the whole set is answered from the portal's index; otherwise the API is read live.
  const searchValues = Object.fromEntries(
    ['q', 'sort', 'dir'].flatMap((key) => (params.get(key)?.trim() ? [[key, params.get(key)!.trim()]] : [])),
  );
  const searching = Boolean(searchValues.q || searchValues.sort);
  // How many records of this set each choice holds (from the index), if counted in time: the form's options say it.
  const counts = parsed.ok ? await facetsWithin(kind, parsed.filters, searchValues.q, licenceOrNull()) : null;

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-end justify-between gap-x-6 gap-y-2">
        <PageHeader title={title}>
          {/* Results: what the filtered set adds up to, where the introduction goes (the rows keep their room). */}
          {parsed.ok && kind === 'results' ? <ResultsSummary key={wholeSet} query={wholeSet} /> : intro}
        </PageHeader>
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <SearchForm
            key={params.toString()}
            pathname={pathname}
            kept={{
              ...sentFilterValues(kind, params),
              ...(searchValues.sort ? { sort: searchValues.sort, dir: searchValues.dir ?? 'desc' } : {}),
            }}
            q={searchValues.q ?? ''}
          />
          <nav aria-label="Date presets" className="flex flex-wrap gap-1 text-sm" data-testid="date-presets">
            {datePresets().map((preset) => {
              const current = preset.range
                ? params.get('from') === preset.range.from && params.get('to') === preset.range.to
                : !params.get('from') && !params.get('to');
              return (
                <PortalLink
                  key={preset.id}
                  href={presetHref(kind, params, preset)}
                  aria-current={current ? 'true' : undefined}
                  className="rounded-full border border-slate-300 px-3 py-1 text-slate-700 hover:bg-slate-100 aria-[current=true]:border-brand-600 aria-[current=true]:bg-brand-50 aria-[current=true]:font-medium aria-[current=true]:text-brand-700"
                >
                  {preset.label}
                </PortalLink>
              );
            })}
          </nav>
        </div>
      </div>
      <FilterForm kind={kind} values={sentFilterValues(kind, params)} vocabulary={vocabulary} kept={searchValues} counts={counts} />
      {parsed.ok ? (
        <Suspense key={params.toString()} fallback={<TableSkeleton />}>
          {searching ? (
            <IndexedView
              kind={kind}
              filters={parsed.filters}
              params={params}
              exportControl={
                can(session.user.role, 'export') && (
                  <ExportControl
                    endpoint={`/api/export/${kind}`}
                    query={new URLSearchParams({ ...wholeSetFilterValues(kind, params), ...searchValues }).toString()}
                  />
                )
              }
            />
          ) : (
            <RecordsView
              kind={kind}
              filters={parsed.filters}
              params={params}
              exportControl={can(session.user.role, 'export') && <ExportControl endpoint={`/api/export/${kind}`} query={wholeSet} />}
            />
          )}
        </Suspense>
      ) : (
        <ErrorPanel error={parsed.error.toJSON()} retryHref={kind === 'picks' ? '/picks' : '/results'} />
      )}
      <p id="date-hint" className="text-xs text-slate-500">
        {DATE_HINT}
      </p>
    </div>
  );
}
