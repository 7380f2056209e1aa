'use client';

import dynamic from 'next/dynamic';
import type { DayUsage } from '@/lib/store/tokens';

const UsageChart = dynamic(() => import('@/components/tokens/usage-chart'), { ssr: false });

/** A token's use over its last 30 days: a chart where people look, and the same figures as a table to read. */
export function UsagePanel({ days, dailyRecords }: { days: DayUsage[]; dailyRecords: number }) {
  if (days.length === 0) return <p className="text-sm text-slate-600">Not used in the last 30 days.</p>;
  return (
    <div className="space-y-3">
      <div className="h-56" aria-hidden="true">
        <UsageChart days={days} />
      </div>
      <table className="w-full text-left text-sm" data-testid="usage-table">
        <caption className="sr-only">Use per day (UTC)</caption>
        <thead className="text-xs uppercase tracking-wide text-slate-600">
          <tr>
            <th scope="col">Day</th>
            <th scope="col" className="text-right">
              Requests
            </th>
            <th scope="col" className="text-right">
              Records
            </th>
            <th scope="col" className="text-right">
              Of the quota
            </th>
            <th scope="col" className="text-right">
              Bytes
            </th>
            <th scope="col" className="text-right">
              Refused (4xx)
            </th>
            <th scope="col" className="text-right">
              Throttled (429)
            </th>
            <th scope="col">Last from</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.day} data-day={d.day} className="border-t border-slate-100">
              <td>{d.day}</td>
              <td className="text-right">{d.requests.toLocaleString('en')}</td>
              <td className="text-right">{d.records.toLocaleString('en')}</td>
              <td className="text-right">{Math.round((d.records / dailyRecords) * 100)} %</td>
              <td className="text-right">{d.bytes.toLocaleString('en')}</td>
              <td className="text-right">{d.clientErrors.toLocaleString('en')}</td>
              <td className="text-right">{d.throttled.toLocaleString('en')}</td>
              <td className="font-mono text-xs">{d.lastAddress ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
