export function TableSkeleton({ label = 'Loading records…' }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" className="space-y-2" data-testid="table-skeleton">
      <span className="sr-only">{label}</span>
      <div className="h-8 w-24 animate-pulse rounded-md bg-slate-200" />
      <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
        {Array.from({ length: 8 }, (_, i) => (
          <div key={i} className="flex gap-4 border-b border-slate-100 px-3 py-3">
            <div className="h-10 w-64 animate-pulse rounded bg-slate-100" />
            {Array.from({ length: 6 }, (_, j) => (
              <div key={j} className="h-4 flex-1 animate-pulse rounded bg-slate-100" />
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}
