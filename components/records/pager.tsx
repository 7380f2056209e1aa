import { PortalLink } from '@/components/portal-link';
import { LastPage } from '@/components/records/count-all';
import { encodeTrail, hrefWith, pageNumberOf } from '@/lib/paging';
import { buttonClass } from '@/components/ui/button';
import { controlClass } from '@/components/ui/field';

const linkClass = buttonClass();
const offClass = 'rounded-md border border-slate-200 px-3 py-1.5 text-slate-500';

/** First, previous, next and last through cursor pages (last once the background total names it), and a page by number. Cursors of earlier pages ride in `trail` ('' is the first page). */
export function Pager({
  pathname,
  params,
  cursor,
  trail,
  nextCursor,
  id,
  kind,
  size,
}: {
  pathname: string;
  params: URLSearchParams;
  cursor: string | undefined;
  trail: string[];
  nextCursor: string | null;
  /** Tells the pager above the table from the one below it (their fields' ids). */
  id: 'top' | 'bottom';
  kind: 'picks' | 'results';
  /** Records a page (the last page's number is the total over it). */
  size: number;
}) {
  const previous = trail.length > 0 ? trail[trail.length - 1] : undefined;
  const prevHref =
    previous === undefined
      ? null
      : hrefWith(pathname, params, {
          cursor: previous || null,
          trail: trail.length > 1 ? encodeTrail(trail.slice(0, -1)) : null,
          page: null,
        });
  const nextHref = nextCursor
    ? hrefWith(pathname, params, { cursor: nextCursor, trail: encodeTrail([...trail, cursor ?? '']), page: null })
    : null;
  const firstHref = cursor ? hrefWith(pathname, params, { cursor: null, trail: null, page: null }) : null;
  // "Go to page": the filters ride along as they are; the page is walked to (lib/records/jump.ts).
  const kept = [...params].filter(([key]) => !['cursor', 'trail', 'page'].includes(key));
  const pageNumber = pageNumberOf(cursor, trail);

  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center gap-2 text-sm">
      {firstHref ? (
        <PortalLink href={firstHref} className={linkClass}>
          First
        </PortalLink>
      ) : (
        <span className={offClass} aria-disabled="true">
          First
        </span>
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
      <LastPage
        kind={kind}
        query={params.toString()}
        href={firstHref ?? hrefWith(pathname, params, { page: null })}
        size={size}
        onLast={!nextCursor}
      />
      <form method="get" action={pathname} className="flex items-center gap-1 max-sm:hidden" aria-label="Go to a page">
        {kept.map(([key, value], i) => (
          <input key={`${key}-${i}`} type="hidden" name={key} value={value} />
        ))}
        <label className="sr-only" htmlFor={`go-to-page-${id}`}>
          Page number
        </label>
        <input
          id={`go-to-page-${id}`}
          name="page"
          type="number"
          min={1}
          inputMode="numeric"
          placeholder="Page"
          className={controlClass(true, 'w-20')}
        />
        <button type="submit" className={linkClass}>
          Go
        </button>
      </form>
    </nav>
  );
}
