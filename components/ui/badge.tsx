import type { ReactNode } from 'react';

/**
 * The portal's badge: a short word in a pill (styles: globals.css `.badge`). `Badge` takes a tone —
 * neutral, brand, warning, danger, success; `StatusBadge` takes a value (a lifecycle state, a result,
 * feed health, a token's state, a change's kind) and colours it by that value, values the spec does not
 * list keeping the neutral tone.
 */

export type BadgeTone = 'neutral' | 'brand' | 'warning' | 'danger' | 'success';

export function Badge({
  tone = 'neutral',
  title,
  children,
  ...data
}: { tone?: BadgeTone; title?: string; children?: ReactNode } & Record<`data-${string}`, string>) {
  return (
    <span className="badge" data-tone={tone} title={title} {...data}>
      {children}
    </span>
  );
}

export function StatusBadge({ value }: { value: string | null }) {
  if (!value) return <span className="text-slate-500">—</span>;
  return (
    <span className="badge" data-v={value}>
      {value}
    </span>
  );
}
