import type { Metadata } from 'next';
import type { PageSearchParams } from '@/lib/picks-api/filters';
import { CoverageRunner } from '@/components/coverage/coverage-runner';
import { ErrorPanel } from '@/components/error-panel';
import { FilterForm } from '@/components/records/filter-form';
import { requirePage } from '@/lib/http/session';
import { MAX_COVERAGE_DAYS, parseCoverageQuery, type CoverageQuery } from '@/lib/coverage/run';
import { toAppError, type AppError } from '@/lib/errors';
import { toSearchParams } from '@/lib/paging';
import { licenceVocabulary } from '@/lib/deliveries/filter-rules';
import { PageHeader } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Coverage' };

export default async function CoveragePage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const params = toSearchParams(await searchParams);
  await requirePage('coverage', `/coverage?${params.toString()}`);
  let query: CoverageQuery | null = null;
  let invalid: AppError | null = null;
  try {
    query = parseCoverageQuery(params);
  } catch (error) {
    invalid = toAppError(error);
  }
  const vocabulary = await licenceVocabulary();
  const values = query
    ? {
        from: query.fromDay,
        to: query.toDay,
        ...(query.sport ? { sport: query.sport } : {}),
        ...(query.league ? { league: query.league } : {}),
      }
    : Object.fromEntries(['from', 'to', 'sport', 'league'].flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])));
  const runnerQuery = query ? new URLSearchParams(values).toString() : '';

  return (
    <div className="space-y-4">
      <PageHeader title="Coverage">
        What the licence promises next to what it delivers, walked live from the Picks API. Default range: the last 30 days to the next 14
        (UTC); at most {MAX_COVERAGE_DAYS} days.
      </PageHeader>
      <FilterForm kind="coverage" values={values} vocabulary={vocabulary} />
      {invalid ? <ErrorPanel error={invalid.toJSON()} retryHref="/coverage" /> : <CoverageRunner key={runnerQuery} query={runnerQuery} />}
    </div>
  );
}
