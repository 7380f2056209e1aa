'use client';

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame, COLOURS, Section, td, th } from '@/components/coverage/section';
import type { CoverageReport } from '@/lib/coverage/aggregate';

/** Picks per event day, stacked by sport, with its table. */
export function PicksTimeline({ report }: { report: CoverageReport }) {
  const timeline = report.timeline.map((d) => ({ day: d.day.slice(5), ...d.bySport }));
  return (
    <Section id="timeline" title="Picks per day, by sport" note="Event days in UTC.">
      <ChartFrame testId="timeline-chart" label="Stacked bar chart of picks per day by sport; the same figures are in the table below">
        <BarChart data={timeline} margin={{ top: 8, right: 8, left: 0, bottom: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tick={{ fontSize: 11 }} interval="preserveStartEnd" />
          <YAxis
            allowDecimals={false}
            tick={{ fontSize: 11 }}
            label={{ value: 'picks', angle: -90, position: 'insideLeft', fontSize: 11 }}
          />
          <Tooltip />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {report.sports.map((sport, i) => (
            <Bar key={sport} dataKey={sport} stackId="sports" fill={COLOURS[i % COLOURS.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ChartFrame>
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer font-medium text-brand-700">Show as a table</summary>
        <table className="mt-2 text-sm">
          <thead>
            <tr>
              <th scope="col" className={th}>
                Day
              </th>
              {report.sports.map((s) => (
                <th key={s} scope="col" className={th}>
                  {s}
                </th>
              ))}
              <th scope="col" className={th}>
                Total
              </th>
            </tr>
          </thead>
          <tbody>
            {report.timeline.map((d) => (
              <tr key={d.day}>
                <th scope="row" className={`${td} text-left font-normal`}>
                  {d.day}
                </th>
                {report.sports.map((s) => (
                  <td key={s} className={`${td} tabular-nums`}>
                    {d.bySport[s] ?? 0}
                  </td>
                ))}
                <td className={`${td} tabular-nums`}>{d.total}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </Section>
  );
}
