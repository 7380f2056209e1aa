const TONES: Record<string, string> = {
  upcoming: 'bg-sky-100 text-sky-800',
  live: 'bg-amber-100 text-amber-900',
  settled: 'bg-slate-200 text-slate-800',
  void: 'bg-zinc-200 text-zinc-700',
  win: 'bg-emerald-100 text-emerald-800',
  loss: 'bg-rose-100 text-rose-800',
  push: 'bg-indigo-100 text-indigo-800',
};

/** A lifecycle state or result; values the spec does not list still show, in a neutral tone. */
export function StatusBadge({ value }: { value: string | null }) {
  if (!value) return <span className="text-slate-500">—</span>;
  return (
    <span className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${TONES[value] ?? 'bg-slate-100 text-slate-700'}`}>
      {value}
    </span>
  );
}
