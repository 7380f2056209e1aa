/**
 * Shown while records load. One element drawn by the stylesheet (globals.css .table-skeleton): it is in
 * every /picks and /results page twice (route and table), as HTML and as RSC payload, so it is kept small.
 */
export function TableSkeleton({ label = 'Loading records…' }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" className="table-skeleton" data-testid="table-skeleton">
      <span className="sr-only">{label}</span>
    </div>
  );
}
