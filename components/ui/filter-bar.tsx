import type { ReactNode } from 'react';
import { PortalLink } from '@/components/portal-link';
import { Button, buttonClass } from '@/components/ui/button';
import { cardClass } from '@/components/ui/card';
import { FilterSheet, type FilterChip } from '@/components/ui/filter-sheet';
import { AutoApply } from '@/components/ui/auto-apply';

/**
 * A page's filters as a plain GET form: they live in the URL (shareable, the back button works) and it
 * works without JavaScript (on a phone, with `chips`, it opens from a "Filters (n)" button). Apply and Clear close the grid; `extra` goes above them (a checkbox, say), and
 * `footer` below the grid (how dates are read). `grid` sets the columns per screen width.
 */
export function FilterBar({
  action,
  label,
  grid,
  children,
  extra,
  footer,
  chips,
  autoApply = false,
  kept = {},
}: {
  action: string;
  label: string;
  grid: string;
  children: ReactNode;
  extra?: ReactNode;
  footer?: ReactNode;
  /** The filters set now: on a phone the form folds behind "Filters (n)" with these as removable chips. */
  chips?: FilterChip[];
  /** The filters apply as they change (./auto-apply.tsx); Apply is shown only without JavaScript and in a phone's sheet. */
  autoApply?: boolean;
  /** Values that ride along unchanged (a search's words and order), as hidden fields. */
  kept?: Record<string, string>;
}) {
  const form = (
    <form method="get" action={action} role="search" aria-label={label} className={cardClass('group p-3')}>
      {Object.entries(kept).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {autoApply && <AutoApply />}
      <div className={`grid gap-3 ${grid}`}>
        {children}
        <div className="flex flex-col justify-end gap-2">
          {extra}
          <div className="flex gap-2">
            {/* Without JavaScript, and in a phone's sheet, the filters apply here; elsewhere they apply as they change. */}
            <Button type="submit" tone="primary" className={autoApply ? 'sm:group-data-[live]:hidden' : undefined}>
              Apply
            </Button>
            <PortalLink href={action} className={buttonClass('quiet')}>
              Clear
            </PortalLink>
          </div>
        </div>
      </div>
      {footer}
    </form>
  );
  return chips ? <FilterSheet chips={chips}>{form}</FilterSheet> : form;
}

const PAGING = ['cursor', 'trail', 'page'];

/** The chips of the filters set in `values` (named by `labels`), each linking to `action` without it. */
export function filterChips(action: string, values: Record<string, string>, labels: Record<string, string>): FilterChip[] {
  return Object.entries(values)
    .filter(([name, value]) => value !== '' && labels[name])
    .map(([name, value]) => {
      // A page's position (cursor, trail, page) does not survive a change of filters.
      const rest = new URLSearchParams(Object.entries(values).filter(([other]) => other !== name && !PAGING.includes(other)));
      // A ticked box (value 1) is named alone: "Since my last visit".
      return { label: value === '1' ? labels[name]! : `${labels[name]}: ${value}`, href: rest.size ? `${action}?${rest}` : action };
    });
}

/** A page's search parameters that hold one value each (the ones a filter form writes). */
export function stringValues(params: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
