/** A lifecycle state or result; values the spec does not list still show, in a neutral tone (styles: globals.css .badge). */
export function StatusBadge({ value }: { value: string | null }) {
  if (!value) return <span className="text-slate-500">—</span>;
  return (
    <span className="badge" data-v={value}>
      {value}
    </span>
  );
}
