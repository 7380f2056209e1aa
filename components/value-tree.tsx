/**
 * Any JSON value, readably: objects as definition lists, arrays as lists, nested to any depth, every
 * string as text (never markup); on a phone each name sits above its value. For bodies whose shape the spec
 * does not give (/me, unknown fields).
 */
export function ValueTree({ value, depth = 0 }: { value: unknown; depth?: number }) {
  if (value === null || value === undefined) return <span className="text-slate-500">not stated</span>;
  if (typeof value === 'boolean') return <span>{value ? 'yes' : 'no'}</span>;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'bigint')
    return <span className="break-words">{String(value)}</span>;
  if (depth > 8) return <span className="text-slate-500">…</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="text-slate-500">none</span>;
    return (
      <ul className="list-inside list-disc space-y-0.5">
        {value.map((item, i) => (
          <li key={i}>
            <ValueTree value={item} depth={depth + 1} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <span className="text-slate-500">empty</span>;
    return (
      <dl
        className={`grid grid-cols-1 gap-x-4 sm:grid-cols-[minmax(6rem,max-content)_minmax(0,1fr)] sm:gap-y-1 ${depth > 0 ? 'border-l-2 border-slate-100 pl-3' : ''}`}
      >
        {entries.map(([key, item]) => (
          <div key={key} className="contents">
            <dt className="font-mono text-xs leading-6 text-slate-500 [overflow-wrap:anywhere]">{key}</dt>
            <dd className="min-w-0 text-sm leading-6 [overflow-wrap:anywhere]">
              <ValueTree value={item} depth={depth + 1} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <span>{String(value)}</span>;
}
