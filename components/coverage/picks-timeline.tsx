'use client';

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame, COLOURS, Section } from '@/components/coverage/section';
import { DataTable } from '@/components/ui/data-table';
import type { CoverageReport } from '@/lib/coverage/aggregate';

type Day = CoverageReport['timeline'][number];

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
        <div className="mt-2">
          <DataTable
            testId="timeline-table"
            frame="bare"
            caption="Picks per day, by sport"
            columns={[
              { id: 'day', header: 'Day', rowHeader: true, nowrap: true, cell: (d: Day) => d.day },
              ...report.sports.map((s) => ({ id: `sport-${s}`, header: s, align: 'right' as const, cell: (d: Day) => d.bySport[s] ?? 0 })),
              { id: 'total', header: 'Total', align: 'right', cell: (d: Day) => d.total },
            ]}
            rows={report.timeline}
            rowKey={(d) => d.day}
          />
        </div>
      </details>
    </Section>
  );
}
