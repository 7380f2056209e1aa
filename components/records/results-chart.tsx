'use client';

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RecordsSummary } from '@/lib/records/summary';

/** Hit rate per confidence tier, as bars (loaded after the page: recharts is only fetched where a chart shows). */
export default function ResultsChart({ tiers }: { tiers: RecordsSummary['tiers'] }) {
  const data = tiers.map((t) => ({ tier: t.tier, hitRate: t.hitRate === null ? 0 : Number((t.hitRate * 100).toFixed(1)) }));
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={data} margin={{ top: 4, right: 8, left: 0, bottom: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="tier" tick={{ fontSize: 11 }} />
        <YAxis domain={[0, 100]} unit="%" tick={{ fontSize: 11 }} width={40} />
        <Tooltip formatter={(value) => [`${String(value)}%`, 'Hit rate']} />
        <Bar dataKey="hitRate" fill="var(--color-brand-600)" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
