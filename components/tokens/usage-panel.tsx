'use client';

import dynamic from 'next/dynamic';
import type { DayUsage } from '@/lib/store/tokens';
import { DataTable, type Column } from '@/components/ui/data-table';

const UsageChart = dynamic(() => import('@/components/tokens/usage-chart'), { ssr: false });

const figure = (id: string, header: string, value: (d: DayUsage) => number): Column<DayUsage> => ({
  id,
  header,
  align: 'right',
  cell: (d) => value(d).toLocaleString('en'),
});

const columns = (dailyRecords: number): Column<DayUsage>[] => [
  { id: 'day', header: 'Day', rowHeader: true, nowrap: true, cell: (d) => d.day },
  figure('requests', 'Requests', (d) => d.requests),
  figure('records', 'Records', (d) => d.records),
  { id: 'quota', header: 'Of the quota', align: 'right', cell: (d) => `${Math.round((d.records / dailyRecords) * 100)} %` },
  figure('bytes', 'Bytes', (d) => d.bytes),
  figure('refused', 'Refused (4xx)', (d) => d.clientErrors),
  figure('throttled', 'Throttled (429)', (d) => d.throttled),
  { id: 'last-from', header: 'Last from', className: 'font-mono text-xs', cell: (d) => d.lastAddress ?? '—' },
];

/** A token's use over its last 30 days: a chart where people look, and the same figures as a table to read. */
export function UsagePanel({ days, dailyRecords }: { days: DayUsage[]; dailyRecords: number }) {
  if (days.length === 0) return <p className="text-sm text-slate-600">Not used in the last 30 days.</p>;
  return (
    <div className="space-y-3">
      <div className="h-56" aria-hidden="true">
        <UsageChart days={days} />
      </div>
      <DataTable
        testId="usage-table"
        frame="bare"
        caption="Use per day (UTC)"
        columns={columns(dailyRecords)}
        rows={days}
        rowKey={(d) => d.day}
        rowData={(d) => ({ 'data-day': d.day })}
      />
    </div>
  );
}
