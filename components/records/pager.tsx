import { PortalLink } from '@/components/portal-link';
import { encodeTrail, hrefWith, pageNumberOf } from '@/lib/paging';
import { buttonClass } from '@/components/ui/button';

const linkClass = buttonClass();
const offClass = 'rounded-md border border-slate-200 px-3 py-1.5 text-slate-500';

/** Previous / next through cursor pages. Cursors of earlier pages ride in `trail` ('' is the first page). */
export function Pager({
  pathname,
  params,
  cursor,
  trail,
  nextCursor,
}: {
  pathname: string;
  params: URLSearchParams;
  cursor: string | undefined;
  trail: string[];
  nextCursor: string | null;
}) {
  const previous = trail.length > 0 ? trail[trail.length - 1] : undefined;
  const prevHref =
    previous === undefined
      ? null
      : hrefWith(pathname, params, { cursor: previous || null, trail: trail.length > 1 ? encodeTrail(trail.slice(0, -1)) : null });
  const nextHref = nextCursor ? hrefWith(pathname, params, { cursor: nextCursor, trail: encodeTrail([...trail, cursor ?? '']) }) : null;
  const firstHref = cursor ? hrefWith(pathname, params, { cursor: null, trail: null }) : null;
  const pageNumber = pageNumberOf(cursor, trail);

  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center gap-2 text-sm">
      {firstHref && !prevHref && (
        <PortalLink href={firstHref} className={linkClass}>
          First page
        </PortalLink>
      )}
      {prevHref ? (
        <PortalLink href={prevHref} className={linkClass} rel="prev">
          ← Previous
        </PortalLink>
      ) : (
        <span className={offClass} aria-disabled="true">
          ← Previous
        </span>
      )}
      <span className="px-2 text-slate-600" data-testid="page-number">
        {pageNumber ? `Page ${pageNumber}` : 'A later page'}
      </span>
      {nextHref ? (
        <PortalLink href={nextHref} className={linkClass} rel="next">
          Next →
        </PortalLink>
      ) : (
        <span className={offClass} aria-disabled="true">
          Next →
        </span>
      )}
    </nav>
  );
}
