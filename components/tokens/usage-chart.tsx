'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** A token's records and requests per day, as bars (loaded after the page: recharts is only fetched where a chart shows). */
export default function UsageChart({ days }: { days: { day: string; records: number; requests: number; throttled: number }[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={days} margin={{ top: 4, right: 8, left: 0, bottom: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="day" tick={{ fontSize: 11 }} />
        <YAxis yAxisId="records" tick={{ fontSize: 11 }} width={56} />
        <YAxis yAxisId="requests" orientation="right" tick={{ fontSize: 11 }} width={48} />
        <Tooltip />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar yAxisId="records" dataKey="records" name="Records" fill="var(--color-brand-600)" isAnimationActive={false} />
        <Bar yAxisId="requests" dataKey="requests" name="Requests" fill="#94a3b8" isAnimationActive={false} />
        <Bar yAxisId="requests" dataKey="throttled" name="Refused (429)" fill="#b91c1c" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
