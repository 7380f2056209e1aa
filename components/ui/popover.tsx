'use client';

import { useEffect, useRef, type ReactNode } from 'react';
import { buttonClass } from '@/components/ui/button';

/** The class of a panel that opens over the page beside its button (a popover, the account menu). */
export const panelClass = (extra = ''): string =>
  `absolute mt-1 rounded-md border border-slate-200 bg-white text-sm shadow-lg ${extra}`.trim();

/**
 * A button that opens a small panel beside it (the table's columns, the export's choices): a <details>, so
 * it opens without JavaScript and is keyboard reachable; a click elsewhere or Escape closes it.
 */
export function Popover({
  label,
  children,
  align = 'right',
  width = 'w-64',
  testId,
}: {
  label: ReactNode;
  children: ReactNode;
  align?: 'left' | 'right';
  /** The panel's width (a Tailwind class). */
  width?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const outside = (event: PointerEvent) => {
      const details = ref.current;
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    };
    const escape = (event: KeyboardEvent) => {
      const details = ref.current;
      if (event.key !== 'Escape' || !details?.open) return;
      details.open = false;
      details.querySelector('summary')?.focus();
    };
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, []);
  return (
    <details ref={ref} className="relative inline-block" data-testid={testId}>
      <summary className={buttonClass('secondary', 'md', 'cursor-pointer list-none [&::-webkit-details-marker]:hidden')}>{label}</summary>
      <div className={panelClass(`z-20 space-y-2 p-3 ${align === 'right' ? 'right-0' : 'left-0'} ${width}`)}>{children}</div>
    </details>
  );
}
