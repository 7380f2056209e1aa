'use client';

import { CartesianGrid, ComposedChart, Legend, Line, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame, capitalise, HeaderRow, pct, Section, td } from '@/components/coverage/section';
import { PICK_RESULTS } from '@/lib/picks-api/vocabulary';
import type { CoverageReport } from '@/lib/coverage/aggregate';

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
          <table className="text-sm">
            <thead>
              <HeaderRow labels={['League', ...PICK_RESULTS.map(capitalise)]} />
            </thead>
            <tbody>
              {report.rows.map((r) => (
                <tr key={r.league}>
                  <th scope="row" className={`${td} text-left font-normal`}>
                    {r.league}
                  </th>
                  {PICK_RESULTS.map((k) => (
                    <td key={k} className={`${td} tabular-nums`}>
                      {r.results[k]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <h3 className="mb-2 mt-5 text-sm font-medium">Hit rate per confidence tier (wins ÷ wins and losses)</h3>
          <table className="text-sm" data-testid="tier-table">
            <thead>
              <HeaderRow labels={['Tier', 'Wins', 'Losses', 'Hit rate']} />
            </thead>
            <tbody>
              {report.tiers.map((t) => (
                <tr key={t.tier}>
                  <th scope="row" className={`${td} text-left font-normal`}>
                    {t.tier}
                  </th>
                  <td className={`${td} tabular-nums`}>{t.wins}</td>
                  <td className={`${td} tabular-nums`}>{t.losses}</td>
                  <td className={`${td} tabular-nums`}>{pct(t.hitRate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
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
            <table className="mt-2 text-sm">
              <thead>
                <HeaderRow labels={['Stated', 'Settled (win/loss)', 'Wins', 'Realised']} />
              </thead>
              <tbody>
                {report.calibration.buckets.map((b) => (
                  <tr key={b.from}>
                    <th scope="row" className={`${td} text-left font-normal`}>
                      {pct(b.from)}–{pct(b.to)}
                    </th>
                    <td className={`${td} tabular-nums`}>{b.settled}</td>
                    <td className={`${td} tabular-nums`}>{b.wins}</td>
                    <td className={`${td} tabular-nums`}>{pct(b.winRate)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </div>
      </div>
    </Section>
  );
}
