import type { AuditEntry } from '@/lib/store/audit';
import { UtcTime } from '@/components/utc-time';
import { DataTable, filtersText, outcomeCell, sha256Column, type Column } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/card';

const dash = (value: string | number | null) => value ?? '—';
const actionOf = (e: AuditEntry) => (e.target ? `${e.action} · ${e.target}` : e.action);
const actorOf = (e: AuditEntry) => (e.role ? `${e.actor} (${e.role})` : e.actor);

const COLUMNS: Column<AuditEntry>[] = [
  { id: 'seq', header: '#', className: 'text-slate-500', cell: (e) => e.seq },
  { id: 'at', header: 'At', nowrap: true, cell: (e) => <UtcTime iso={e.at} /> },
  {
    id: 'actor',
    header: 'Actor (role)',
    cell: (e) => actorOf(e),
    truncate: (e) => actorOf(e),
    cutAt: 'max-w-40',
  },
  { id: 'action', header: 'Action · target', cell: (e) => actionOf(e), truncate: (e) => actionOf(e), cutAt: 'max-w-40' },
  {
    id: 'filters',
    header: 'Filters',
    className: 'text-xs',
    cell: (e) => filtersText(e.filters),
    truncate: (e) => filtersText(e.filters),
    cutAt: 'max-w-40',
  },
  { id: 'outcome', header: 'Outcome', cell: (e) => outcomeCell(e.outcome, e.errorCode) },
  {
    id: 'records',
    header: 'Records',
    align: 'right',
    cell: (e) => (
      <>
        {dash(e.records)}
        {e.bytes !== null && <span className="block text-xs text-slate-600">{e.bytes} bytes</span>}
      </>
    ),
  },
  sha256Column((e) => e.sha256),
  { id: 'address', header: 'Address', cell: (e) => dash(e.address), truncate: (e) => e.address ?? '—', cutAt: 'max-w-32' },
];

/** Audit entries as a plain table: what happened, to what, how it ended, and the figures of exports. */
export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0)
    return (
      <EmptyState testId="audit-empty">
        No entries match these filters. Widen the dates or clear a filter to see more of the trail.
      </EmptyState>
    );
  return (
    <DataTable
      testId="audit-table"
      cards
      label="Audit entries"
      columns={COLUMNS}
      rows={entries}
      rowKey={(e) => e.seq}
      rowData={(e) => ({ 'data-seq': e.seq })}
    />
  );
}
