import type { ReactNode } from 'react';
import { PortalLink } from '@/components/portal-link';
import { Button, buttonClass } from '@/components/ui/button';
import { cardClass } from '@/components/ui/card';

/**
 * A page's filters as a plain GET form: they live in the URL (shareable, the back button works) and it
 * works without JavaScript. Apply and Clear close the grid; `extra` goes above them (a checkbox, say), and
 * `footer` below the grid (how dates are read). `grid` sets the columns per screen width.
 */
export function FilterBar({
  action,
  label,
  grid,
  children,
  extra,
  footer,
}: {
  action: string;
  label: string;
  grid: string;
  children: ReactNode;
  extra?: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <form method="get" action={action} role="search" aria-label={label} className={cardClass('p-4')}>
      <div className={`grid gap-3 ${grid}`}>
        {children}
        <div className="flex flex-col justify-end gap-2">
          {extra}
          <div className="flex gap-2">
            <Button type="submit" tone="primary">
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
}
