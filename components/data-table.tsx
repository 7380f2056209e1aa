import type { ReactNode } from 'react';

/**
 * The shell of the portal's plain data tables (audit, exports, users, changes, delivery runs): the header row
 * of column names and the body the caller's rows go in. With a `label` the table sits in a labelled,
 * keyboard-focusable scrolling region (axe: scrollable-region-focusable), for the wide ones.
 */
export function DataTable({
  testId,
  columns,
  label,
  children,
}: {
  testId: string;
  columns: string[];
  label?: string;
  children: ReactNode;
}) {
  const region = label ? { role: 'region', 'aria-label': label, tabIndex: 0 } : {};
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white" {...region}>
      <table className="min-w-full text-sm" data-testid={testId}>
        <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-600">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className="px-3 py-2">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A file's sha256 cut to its first 12 characters, the whole value in the tooltip; a dash when there is none. */
export function Sha256Cell({ value }: { value: string | null }) {
  return (
    <td className="px-3 py-2 font-mono text-xs" title={value ?? undefined}>
      {value ? `${value.slice(0, 12)}…` : '—'}
    </td>
  );
}
