import type { AuditEntry } from '@/lib/store/audit';
import { DataTable, Sha256Cell } from '@/components/data-table';

/** Audit entries as a plain table: what happened, to what, how it ended, and the figures of exports. */
export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0)
    return <p className="rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-600">No entries match.</p>;
  return (
    <DataTable
      testId="audit-table"
      label="Audit entries"
      columns={['#', 'At (UTC)', 'Actor', 'Role', 'Action', 'Target', 'Filters', 'Outcome', 'Records', 'Bytes', 'sha256', 'Address']}
    >
      {entries.map((entry) => (
        <tr key={entry.seq} data-seq={entry.seq} className="border-t border-slate-100 align-top">
          <td className="px-3 py-2 text-slate-500">{entry.seq}</td>
          <td className="whitespace-nowrap px-3 py-2">{entry.at.replace('T', ' ').replace(/\.\d+Z$/, '')}</td>
          <td className="px-3 py-2">{entry.actor}</td>
          <td className="px-3 py-2">{entry.role ?? '—'}</td>
          <td className="px-3 py-2">{entry.action}</td>
          <td className="px-3 py-2">{entry.target ?? '—'}</td>
          <td className="px-3 py-2 font-mono text-xs">{entry.filters ? new URLSearchParams(entry.filters).toString() || '—' : '—'}</td>
          <td className="px-3 py-2" data-cell="outcome">
            {entry.outcome}
            {entry.errorCode ? <span className="ml-1 text-xs text-red-700">{entry.errorCode}</span> : null}
          </td>
          <td className="px-3 py-2 text-right">{entry.records ?? '—'}</td>
          <td className="px-3 py-2 text-right">{entry.bytes ?? '—'}</td>
          <Sha256Cell value={entry.sha256} />
          <td className="px-3 py-2">{entry.address ?? '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
