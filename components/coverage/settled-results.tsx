'use client';

import { CartesianGrid, ComposedChart, Legend, Line, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame, capitalise, pct, Section } from '@/components/coverage/section';
import { DataTable, type Column } from '@/components/ui/data-table';
import { PICK_RESULTS } from '@/lib/picks-api/vocabulary';
import type { CoverageReport } from '@/lib/coverage/aggregate';

const TIERS: Column<CoverageReport['tiers'][number]>[] = [
  { id: 'tier', header: 'Tier', rowHeader: true, cell: (t) => t.tier },
  { id: 'wins', header: 'Wins', align: 'right', cell: (t) => t.wins },
  { id: 'losses', header: 'Losses', align: 'right', cell: (t) => t.losses },
  { id: 'hit-rate', header: 'Hit rate', align: 'right', cell: (t) => pct(t.hitRate) },
];

const BUCKETS: Column<CoverageReport['calibration']['buckets'][number]>[] = [
  { id: 'stated', header: 'Stated', rowHeader: true, nowrap: true, cell: (b) => `${pct(b.from)}–${pct(b.to)}` },
  { id: 'settled', header: 'Settled (win/loss)', align: 'right', cell: (b) => b.settled },
  { id: 'wins', header: 'Wins', align: 'right', cell: (b) => b.wins },
  { id: 'realised', header: 'Realised', align: 'right', cell: (b) => pct(b.winRate) },
];

/** Results per league, hit rate per tier, and calibration (stated probability against realised win rate). */
export function SettledResults({ report }: { report: CoverageReport }) {
  const calibration = report.calibration.buckets.map((b) => ({
    stated: Number(((b.from + b.to) / 2).toFixed(2)),
    realised: b.winRate,
    ideal: Number(((b.from + b.to) / 2).toFixed(2)),
    settled: b.settled,
  }));

  return (
    <Section id="results" title="Settled results">
      <div className="grid gap-6 lg:grid-cols-2">
        <div className="min-w-0 overflow-x-auto">
          <h3 className="mb-2 text-sm font-medium">Result mix per league</h3>
          <DataTable
            testId="result-mix"
            frame="bare"
            columns={[
              { id: 'league', header: 'League', rowHeader: true, cell: (r: CoverageReport['rows'][number]) => r.league },
              ...PICK_RESULTS.map((k) => ({
                id: k,
                header: capitalise(k),
                align: 'right' as const,
                cell: (r: CoverageReport['rows'][number]) => r.results[k],
              })),
            ]}
            rows={report.rows}
            rowKey={(r) => `${r.sport}/${r.league}`}
          />
          <h3 className="mb-2 mt-5 text-sm font-medium">Hit rate per confidence tier (wins ÷ wins and losses)</h3>
          <DataTable testId="tier-table" frame="bare" columns={TIERS} rows={report.tiers} rowKey={(t) => t.tier} />
        </div>
        <div className="min-w-0 overflow-x-auto">
          <h3 className="text-sm font-medium">Calibration: stated probability against realised win rate</h3>
          <p className="mt-1 text-sm text-slate-600" data-testid="probability-scale">
            {report.calibration.scale === 'none'
              ? 'No settled pick carried a probability.'
              : `Probability read on a ${report.calibration.scale === 'unit' ? '0–1' : '0–100'} scale (detected from the data: ${report.calibration.scale === 'unit' ? 'no value above 1' : 'values above 1'}).`}
          </p>
          <ChartFrame
            testId="calibration-chart"
            label="Calibration chart: realised win rate per stated-probability bucket against the ideal diagonal; figures in the table below"
          >
            <ComposedChart data={calibration} margin={{ top: 8, right: 8, left: 0, bottom: 16 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis
                dataKey="stated"
                type="number"
                domain={[0, 1]}
                ticks={[0, 0.2, 0.4, 0.6, 0.8, 1]}
                tick={{ fontSize: 11 }}
                label={{ value: 'stated probability', position: 'insideBottom', offset: -8, fontSize: 11 }}
              />
              <YAxis
                domain={[0, 1]}
                ticks={[0, 0.2, 0.4, 0.6, 0.8, 1]}
                tick={{ fontSize: 11 }}
                label={{ value: 'realised win rate', angle: -90, position: 'insideLeft', fontSize: 11 }}
              />
              <Tooltip />
              <Legend wrapperStyle={{ fontSize: 12 }} verticalAlign="top" />
              <Line
                dataKey="ideal"
                name="perfectly calibrated"
                stroke="#94a3b8"
                strokeDasharray="4 4"
                dot={false}
                isAnimationActive={false}
              />
              <Scatter dataKey="realised" name="realised" fill="#1d4ed8" isAnimationActive={false} />
            </ComposedChart>
          </ChartFrame>
          <details className="mt-3 text-sm">
            <summary className="cursor-pointer font-medium text-brand-700">Show as a table</summary>
            <div className="mt-2">
              <DataTable
                testId="calibration-table"
                frame="bare"
                caption="Calibration"
                columns={BUCKETS}
                rows={report.calibration.buckets}
                rowKey={(b) => b.from}
              />
            </div>
          </details>
        </div>
      </div>
    </Section>
  );
}
