'use client';

import { ResponsiveContainer } from 'recharts';
import { cardClass } from '@/components/ui/card';

/** What the coverage sections share: the section frame, the chart frame, chart colours, percentages. */

export const COLOURS = ['#1d4ed8', '#b91c1c', '#047857', '#7c3aed', '#c2410c', '#0f766e', '#be185d', '#4338ca', '#a16207', '#334155'];
export const pct = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);

export function Section({ id, title, note, children }: { id: string; title: string; note?: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className={cardClass('min-w-0 p-5')}>
      <h2 id={id} className="font-semibold">
        {title}
      </h2>
      {note && <p className="mt-1 text-sm text-slate-600">{note}</p>}
      <div className="mt-4">{children}</div>
    </section>
  );
}

export const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A chart's box: fixed height, an image to assistive technology (its figures are always in a table beside it). */
export function ChartFrame({ testId, label, children }: { testId: string; label: string; children: React.ReactElement }) {
  return (
    <div className="h-72" data-testid={testId} role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        {children}
      </ResponsiveContainer>
    </div>
  );
}
