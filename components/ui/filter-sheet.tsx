'use client';

import { SlidersHorizontal, X } from 'lucide-static';
import { Icon } from './icon';
import { useId, useRef, useState, type ReactNode } from 'react';
import { useModal } from '@/components/ui/use-modal';
import { PortalLink } from '@/components/portal-link';
import { Button } from '@/components/ui/button';

export interface FilterChip {
  /** What the filter is, as people say it: "Sport: Football". */
  label: string;
  /** The same page without this filter. */
  href: string;
}

/**
 * The filters set, as chips each removable with a tap or a click, at every width. On a phone (below 640 px) a
 * "Filters (n)" button stands beside them, so the first record is on the first screen, and the form opens as a
 * sheet from the bottom; on wider screens the form shows as it is. The open sheet holds the page like a modal
 * dialog (components/ui/use-modal.ts).
 */
export function FilterSheet({ chips, children }: { chips: FilterChip[]; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const sheet = useRef<HTMLDivElement>(null);
  const backdrop = useRef<HTMLDivElement>(null);
  const { closeAndReturn } = useModal({
    open,
    close: () => setOpen(false),
    keep: [sheet, backdrop],
    opener: button,
    wideFrom: '(min-width: 640px)',
  });
  return (
    <>
      <div className={`flex flex-wrap items-center gap-2 ${chips.length ? '' : 'sm:hidden'}`} data-testid="filter-chips">
        <Button ref={button} aria-expanded={open} aria-controls={id} onClick={() => setOpen(true)} className="sm:hidden">
          <Icon svg={SlidersHorizontal} />
          Filters ({chips.length})
        </Button>
        {chips.map((chip) => (
          <PortalLink
            key={chip.label}
            href={chip.href}
            aria-label={`${chip.label}, remove`}
            className="inline-flex items-center gap-1 rounded-full border border-slate-300 bg-white px-2.5 py-1 text-xs text-slate-700"
          >
            {chip.label}
            <Icon svg={X} className="size-3" />
          </PortalLink>
        ))}
      </div>
      {open && <div ref={backdrop} aria-hidden className="fixed inset-0 z-40 bg-slate-950/40 sm:hidden" onClick={closeAndReturn} />}
      <div
        ref={sheet}
        id={id}
        role={open ? 'dialog' : undefined}
        aria-modal={open || undefined}
        aria-label={open ? 'Filters' : undefined}
        className={
          open
            ? 'fixed inset-x-0 bottom-0 z-50 max-h-[85vh] overflow-y-auto rounded-t-xl bg-white p-2 shadow-xl sm:static sm:z-auto sm:max-h-none sm:rounded-none sm:bg-transparent sm:p-0 sm:shadow-none'
            : 'hidden sm:block'
        }
      >
        {open && (
          <div className="flex items-center justify-between px-2 pb-2 sm:hidden">
            <p className="font-semibold text-slate-900">Filters</p>
            <Button tone="quiet" size="sm" onClick={closeAndReturn}>
              Close
            </Button>
          </div>
        )}
        {children}
      </div>
    </>
  );
}
