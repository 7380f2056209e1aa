'use client';

import { Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import type { CoverageReport } from '@/lib/coverage/aggregate';
import { PICK_STATUSES } from '@/lib/picks-api/vocabulary';
import { LocalTime } from './local-time';

const COLOURS = ['#1d4ed8', '#b91c1c', '#047857', '#7c3aed', '#c2410c', '#0f766e', '#be185d', '#4338ca', '#a16207', '#334155'];
const pct = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);
const th = 'px-3 py-2 text-left font-semibold text-slate-700';
const td = 'px-3 py-1.5';

function Section({ id, title, note, children }: { id: string; title: string; note?: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="rounded-lg border border-slate-200 bg-white p-5">
      <h2 id={id} className="font-semibold">{title}</h2>
      {note && <p className="mt-1 text-sm text-slate-600">{note}</p>}
      <div className="mt-4">{children}</div>
    </section>
  );
}

/** The figures of one complete coverage walk: matrix, gaps, charts (each with its table), field coverage, results. */
export function CoverageView({ report, requests, ms, csvHref }: { report: CoverageReport; requests: number; ms: number; csvHref: string }) {
  const timeline = report.timeline.map((d) => ({ day: d.day.slice(5), ...d.bySport }));
  const calibration = report.calibration.buckets.map((b) => ({
    stated: Number(((b.from + b.to) / 2).toFixed(2)),
    realised: b.winRate,
    ideal: Number(((b.from + b.to) / 2).toFixed(2)),
    settled: b.settled,
  }));

  return (
    <div className="space-y-6" data-testid="coverage-report">
      <p className="text-sm text-slate-600" data-testid="coverage-cost">
        {report.records.toLocaleString()} picks delivered for {report.range.days.length} UTC days ({report.range.days[0]} to {report.range.days.at(-1)}),
        read with <strong>{requests}</strong> upstream requests in {(ms / 1000).toFixed(1)} s.
      </p>

      <Section id="matrix" title="Licensed scope against delivery" note="One row per sport and league delivered in the range. “Licensed” comes from the licence (/me); “not stated” where it names no leagues.">
        <div className="mb-3"><a href={csvHref} className="text-sm font-medium text-brand-700 hover:underline">Download the matrix as CSV</a></div>
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="coverage-matrix">
            <caption className="sr-only">Scope against delivery per sport and league</caption>
            <thead className="bg-slate-50">
              <tr>{['Sport', 'League', 'Licensed', 'Delivered', ...PICK_STATUSES.map((status) => status[0]!.toUpperCase() + status.slice(1)), 'Other', 'Player picks', 'Last published', 'Days without picks'].map((h) => <th key={h} scope="col" className={th}>{h}</th>)}</tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {report.rows.map((r) => (
                <tr key={`${r.sport}/${r.league}`} data-league={r.league}>
                  <td className={td}>{r.sport}</td>
                  <th scope="row" className={`${td} text-left font-medium`}>{r.league}</th>
                  <td className={td}>{r.licensed === null ? 'not stated' : r.licensed ? 'yes' : <span className="font-medium text-red-700">no</span>}</td>
                  <td className={`${td} tabular-nums`} data-total="">{r.total}</td>
                  {[...PICK_STATUSES, 'other' as const].map((status) => <td key={status} className={`${td} tabular-nums`}>{r.byStatus[status]}</td>)}
                  <td className={`${td} tabular-nums`}>{pct(r.total ? r.playerPicks / r.total : null)}</td>
                  <td className={td}><LocalTime iso={r.lastPublishedAt} /></td>
                  <td className={`${td} tabular-nums`} title={r.emptyDays.join(', ')}>{r.emptyDays.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>

      <Section id="gaps" title="Gaps">
        <div className="grid gap-4 text-sm md:grid-cols-3">
          <div>
            <h3 className="font-medium">Licensed, nothing delivered</h3>
            {report.gaps.licensedNotDelivered === null ? <p className="text-slate-600">Cannot be told under a sport filter: the licence lists leagues without their sport.</p>
              : !report.gaps.licenceStatesLeagues ? <p className="text-slate-600">The licence does not state its leagues.</p>
              : report.gaps.licensedNotDelivered.length === 0 ? <p className="text-slate-600">None.</p>
              : <ul className="list-inside list-disc" data-testid="gap-licensed">{report.gaps.licensedNotDelivered.map((l) => <li key={l}>{l}</li>)}</ul>}
          </div>
          <div>
            <h3 className="font-medium">Delivered, not named in the licence</h3>
            {report.gaps.deliveredNotLicensed.length === 0 ? <p className="text-slate-600">None.</p>
              : <ul className="list-inside list-disc">{report.gaps.deliveredNotLicensed.map((l) => <li key={l}>{l}</li>)}</ul>}
          </div>
          <div>
            <h3 className="font-medium">Days without picks, per league</h3>
            <ul className="space-y-0.5">
              {report.rows.filter((r) => r.emptyDays.length > 0).map((r) => (
                <li key={r.league}><span className="font-medium">{r.league}</span>: {r.emptyDays.length} of {report.range.days.length} days</li>
              ))}
            </ul>
          </div>
        </div>
      </Section>

      <Section id="timeline" title="Picks per day, by sport" note="Event days in UTC.">
        <div className="h-72" data-testid="timeline-chart" role="img" aria-label="Stacked bar chart of picks per day by sport; the same figures are in the table below">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={timeline} margin={{ top: 8, right: 8, left: 0, bottom: 8 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="day" tick={{ fontSize: 11 }} interval="preserveStartEnd" />
              <YAxis allowDecimals={false} tick={{ fontSize: 11 }} label={{ value: 'picks', angle: -90, position: 'insideLeft', fontSize: 11 }} />
              <Tooltip />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {report.sports.map((sport, i) => <Bar key={sport} dataKey={sport} stackId="sports" fill={COLOURS[i % COLOURS.length]} isAnimationActive={false} />)}
            </BarChart>
          </ResponsiveContainer>
        </div>
        <details className="mt-3 text-sm">
          <summary className="cursor-pointer font-medium text-brand-700">Show as a table</summary>
          <table className="mt-2 text-sm">
            <thead><tr><th scope="col" className={th}>Day</th>{report.sports.map((s) => <th key={s} scope="col" className={th}>{s}</th>)}<th scope="col" className={th}>Total</th></tr></thead>
            <tbody>{report.timeline.map((d) => <tr key={d.day}><th scope="row" className={`${td} text-left font-normal`}>{d.day}</th>{report.sports.map((s) => <td key={s} className={`${td} tabular-nums`}>{d.bySport[s] ?? 0}</td>)}<td className={`${td} tabular-nums`}>{d.total}</td></tr>)}</tbody>
          </table>
        </details>
      </Section>

      <Section id="fields" title="Field coverage" note="Share of delivered picks in which each documented field is present and not null: how the content mode shows in practice.">
        <table className="min-w-full text-sm" data-testid="field-coverage">
          <caption className="sr-only">Field coverage</caption>
          <thead><tr><th scope="col" className={th}>Field</th><th scope="col" className={th}>Present</th><th scope="col" className={`${th} w-1/2`}>Share</th></tr></thead>
          <tbody className="divide-y divide-slate-100">
            {report.fieldCoverage.map((f) => (
              <tr key={f.field} data-field={f.field} data-share={f.share.toFixed(4)}>
                <th scope="row" className={`${td} text-left font-mono text-xs font-normal`}>{f.field}</th>
                <td className={`${td} tabular-nums`}>{f.present.toLocaleString()}</td>
                <td className={td}>
                  <div className="flex items-center gap-2">
                    <div className="h-2 flex-1 rounded bg-slate-100"><div className={`h-2 rounded ${f.share < 0.5 ? 'bg-amber-500' : 'bg-emerald-600'}`} style={{ width: `${(f.share * 100).toFixed(1)}%` }} /></div>
                    <span className="w-14 text-right tabular-nums">{pct(f.share)}</span>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>

      <Section id="results" title="Settled results">
        <div className="grid gap-6 lg:grid-cols-2">
          <div>
            <h3 className="mb-2 text-sm font-medium">Result mix per league</h3>
            <table className="text-sm">
              <thead><tr>{['League', 'Win', 'Loss', 'Push', 'Void'].map((h) => <th key={h} scope="col" className={th}>{h}</th>)}</tr></thead>
              <tbody>{report.rows.map((r) => <tr key={r.league}><th scope="row" className={`${td} text-left font-normal`}>{r.league}</th>{(['win', 'loss', 'push', 'void'] as const).map((k) => <td key={k} className={`${td} tabular-nums`}>{r.results[k]}</td>)}</tr>)}</tbody>
            </table>
            <h3 className="mb-2 mt-5 text-sm font-medium">Hit rate per confidence tier (wins ÷ wins and losses)</h3>
            <table className="text-sm" data-testid="tier-table">
              <thead><tr>{['Tier', 'Wins', 'Losses', 'Hit rate'].map((h) => <th key={h} scope="col" className={th}>{h}</th>)}</tr></thead>
              <tbody>{report.tiers.map((t) => <tr key={t.tier}><th scope="row" className={`${td} text-left font-normal`}>{t.tier}</th><td className={`${td} tabular-nums`}>{t.wins}</td><td className={`${td} tabular-nums`}>{t.losses}</td><td className={`${td} tabular-nums`}>{pct(t.hitRate)}</td></tr>)}</tbody>
            </table>
          </div>
          <div>
            <h3 className="text-sm font-medium">Calibration: stated probability against realised win rate</h3>
            <p className="mt-1 text-sm text-slate-600" data-testid="probability-scale">
              {report.calibration.scale === 'none' ? 'No settled pick carried a probability.' : `Probability read on a ${report.calibration.scale === 'unit' ? '0–1' : '0–100'} scale (detected from the data: ${report.calibration.scale === 'unit' ? 'no value above 1' : 'values above 1'}).`}
            </p>
            <div className="h-72" data-testid="calibration-chart" role="img" aria-label="Calibration chart: realised win rate per stated-probability bucket against the ideal diagonal; figures in the table below">
              <ResponsiveContainer width="100%" height="100%">
                <ComposedChart data={calibration} margin={{ top: 8, right: 8, left: 0, bottom: 16 }}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="stated" type="number" domain={[0, 1]} ticks={[0, 0.2, 0.4, 0.6, 0.8, 1]} tick={{ fontSize: 11 }} label={{ value: 'stated probability', position: 'insideBottom', offset: -8, fontSize: 11 }} />
                  <YAxis domain={[0, 1]} ticks={[0, 0.2, 0.4, 0.6, 0.8, 1]} tick={{ fontSize: 11 }} label={{ value: 'realised win rate', angle: -90, position: 'insideLeft', fontSize: 11 }} />
                  <Tooltip />
                  <Legend wrapperStyle={{ fontSize: 12 }} verticalAlign="top" />
                  <Line dataKey="ideal" name="perfectly calibrated" stroke="#94a3b8" strokeDasharray="4 4" dot={false} isAnimationActive={false} />
                  <Scatter dataKey="realised" name="realised" fill="#1d4ed8" isAnimationActive={false} />
                </ComposedChart>
              </ResponsiveContainer>
            </div>
            <details className="mt-3 text-sm">
              <summary className="cursor-pointer font-medium text-brand-700">Show as a table</summary>
              <table className="mt-2 text-sm">
                <thead><tr>{['Stated', 'Settled (win/loss)', 'Wins', 'Realised'].map((h) => <th key={h} scope="col" className={th}>{h}</th>)}</tr></thead>
                <tbody>{report.calibration.buckets.map((b) => <tr key={b.from}><th scope="row" className={`${td} text-left font-normal`}>{pct(b.from)}–{pct(b.to)}</th><td className={`${td} tabular-nums`}>{b.settled}</td><td className={`${td} tabular-nums`}>{b.wins}</td><td className={`${td} tabular-nums`}>{pct(b.winRate)}</td></tr>)}</tbody>
              </table>
            </details>
          </div>
        </div>
      </Section>
    </div>
  );
}
