'use client';

import dynamic from 'next/dynamic';
import { plural } from '@/lib/plural';
import { percent, type Outcomes } from '@/lib/records/summary';
import { useSummary } from '@/components/records/use-summary';
import { cardClass } from '@/components/ui/card';
import { DataTable, type Column } from '@/components/ui/data-table';
import { labelClass } from '@/components/ui/field';

const ResultsChart = dynamic(() => import('@/components/records/results-chart'), { ssr: false });
const LEAGUES_SHOWN = 6;

/** Above /results: what the filtered results add up to, with the hit rate by tier (a chart) and by league. */
export function ResultsSummary({ query }: { query: string }) {
  const state = useSummary('results', query);
  return (
    <section aria-labelledby="results-summary" className={cardClass('p-4 text-sm')} data-testid="results-summary">
      <h2 id="results-summary" className="font-semibold">
        Summary of these results
      </h2>
      {state.phase === 'loading' ? (
        <p role="status" className="mt-2 text-slate-600" data-phase="loading">
          Adding up every result the filters match…
        </p>
      ) : state.phase === 'failed' ? (
        <p role="alert" className="mt-2 text-red-800" data-phase="failed">
          {state.message}
        </p>
      ) : (
        <Figures summary={state.summary} />
      )}
    </section>
  );
}

function Figures({ summary }: { summary: Extract<ReturnType<typeof useSummary>, { phase: 'done' }>['summary'] }) {
  if (summary.records === 0) return <p className="mt-2 text-slate-600">No results match these filters.</p>;
  return (
    <div className="mt-2 grid gap-4 lg:grid-cols-3" data-phase="done">
      <div>
        <p data-testid="summary-records">
          <span className="text-2xl font-semibold tabular-nums">{summary.records.toLocaleString('en-GB')}</span>{' '}
          {summary.complete
            ? 'results'
            : `results counted; the filters match more than ${summary.cap.toLocaleString('en-GB')} (narrow the dates)`}
        </p>
        <dl className="mt-2 grid grid-cols-4 gap-2 text-center" data-testid="summary-outcomes">
          {(['win', 'loss', 'push', 'void'] as const).map((result) => (
            <div key={result} className="rounded-md bg-slate-50 py-1">
              <dt className="text-xs capitalize text-slate-600">{result}</dt>
              <dd className="font-semibold tabular-nums" data-result={result}>
                {summary[result]}
              </dd>
            </div>
          ))}
        </dl>
        <p className="mt-2">
          Hit rate{' '}
          <span className="font-semibold tabular-nums" data-testid="summary-hit-rate">
            {percent(summary.hitRate)}
          </span>{' '}
          <span className="text-xs text-slate-600">
            (wins ÷ wins and losses{summary.unsettled ? `; ${plural(summary.unsettled, 'record')} without a result` : ''})
          </span>
        </p>
      </div>
      <div>
        <h3 className={labelClass()}>Hit rate by tier</h3>
        <div
          className="h-32"
          role="img"
          aria-label="Bar chart of the hit rate per confidence tier; the same figures are in the table beside it"
        >
          <ResultsChart tiers={summary.tiers} />
        </div>
        <RateTable label="Tier" rows={summary.tiers.map((t) => ({ name: t.tier, ...t }))} testId="summary-tiers" />
      </div>
      <div>
        <h3 className={labelClass()}>Hit rate by league</h3>
        <RateTable
          label="League"
          rows={summary.leagues.slice(0, LEAGUES_SHOWN).map((l) => ({ name: l.league, ...l }))}
          testId="summary-leagues"
        />
        {summary.leagues.length > LEAGUES_SHOWN && (
          <p className="mt-1 text-xs text-slate-600">and {plural(summary.leagues.length - LEAGUES_SHOWN, 'more league')}</p>
        )}
      </div>
    </div>
  );
}

type Rate = { name: string } & Outcomes;

function RateTable({ label, rows, testId }: { label: string; rows: Rate[]; testId: string }) {
  const columns: Column<Rate>[] = [
    { id: 'name', header: label, rowHeader: true, className: 'max-w-40 truncate', title: (r) => r.name, cell: (r) => r.name },
    { id: 'records', header: 'Results', align: 'right', cell: (r) => r.records },
    { id: 'won-lost', header: 'W–L', align: 'right', nowrap: true, cell: (r) => `${r.win}–${r.loss}` },
    { id: 'hit-rate', header: 'Hit rate', align: 'right', cell: (r) => percent(r.hitRate) },
  ];
  return (
    <div className="mt-1">
      <DataTable
        testId={testId}
        frame="bare"
        size="small"
        columns={columns}
        rows={rows}
        rowKey={(r) => r.name}
        rowData={(r) => ({ 'data-name': r.name })}
      />
    </div>
  );
}
