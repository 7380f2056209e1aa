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

/**
 * What the filtered results add up to, in one short line where the results page's introduction goes (the records
 * keep their room: 14 rows at 1440×900): how many, and the hit rate; folded under it, the outcomes, the hit rate by
 * tier (a chart) and by league.
 */
export function ResultsSummary({ query }: { query: string }) {
  const state = useSummary('results', query);
  return (
    <section aria-labelledby="results-summary" className="text-sm" data-testid="results-summary">
      <details className="group">
        <summary className="flex cursor-pointer flex-wrap items-baseline gap-x-2">
          <h2 id="results-summary" className="font-medium text-slate-900">
            Summary:
          </h2>
          {state.phase === 'loading' ? (
            <span role="status" data-phase="loading">
              adding up every result the filters match…
            </span>
          ) : state.phase === 'failed' ? (
            <span role="alert" className="text-red-800" data-phase="failed">
              {state.message}
            </span>
          ) : (
            <Line summary={state.summary} />
          )}
          <span className="text-xs text-brand-700 underline">
            <span className="group-open:hidden">outcomes, by tier and league</span>
            <span className="hidden group-open:inline">hide</span>
          </span>
        </summary>
        {state.phase === 'done' && state.summary.records > 0 && <Breakdown summary={state.summary} />}
      </details>
    </section>
  );
}

type Summary = Extract<ReturnType<typeof useSummary>, { phase: 'done' }>['summary'];

function Line({ summary }: { summary: Summary }) {
  if (summary.records === 0) return <span>no results match these filters.</span>;
  return (
    <span>
      <span data-testid="summary-records">
        <span className="font-semibold tabular-nums">{summary.records.toLocaleString('en-GB')}</span>
        {summary.complete ? ' results' : '+ results'}
      </span>
      , hit rate{' '}
      <span className="font-semibold tabular-nums" data-testid="summary-hit-rate">
        {percent(summary.hitRate)}
      </span>
    </span>
  );
}

function Breakdown({ summary }: { summary: Summary }) {
  return (
    <div className={cardClass('mt-2 grid gap-4 p-4 lg:grid-cols-3')} data-phase="done">
      <div>
        {!summary.complete && (
          <p>Counted up to {summary.cap.toLocaleString('en-GB')}: the filters match more (narrow the dates for an exact summary).</p>
        )}
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
        <p className="mt-2 text-xs text-slate-600">
          Hit rate: wins ÷ wins and losses{summary.unsettled ? `; ${plural(summary.unsettled, 'record')} without a result` : ''}.
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
