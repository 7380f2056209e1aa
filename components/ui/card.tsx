import type { HTMLAttributes, ReactNode } from 'react';

/** The portal's card: a white panel with a light border, the one container of the pages (dark mode: globals.css). */
const CARD = 'rounded-lg border border-slate-200 bg-white';

/** The class of a card, with what the place adds (padding, spacing, text). */
export const cardClass = (extra = ''): string => `${CARD} ${extra}`.trim();

/** A card that needs attention (`data-tone="attention"`): its border and background turn red. */
export const ATTENTION_CARD = 'data-[tone=attention]:border-red-300 data-[tone=attention]:bg-red-50';

export function Card({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div {...props} className={cardClass(className)} />;
}

/** What a list or a table says when it has nothing to show: a sentence in a card (its links underlined, as in prose), never an empty table. */
export function EmptyState({ children, testId, large = false }: { children: ReactNode; testId?: string; large?: boolean }) {
  // Large: where a whole table would be (the records' lists), a dashed outline of the space it would take.
  if (large)
    return (
      <div className="rounded-lg border border-dashed border-slate-300 bg-white p-10 text-center" data-testid={testId}>
        {children}
      </div>
    );
  return (
    <p className={cardClass('p-4 text-sm text-slate-600 [&_a]:underline')} data-testid={testId}>
      {children}
    </p>
  );
}
