import type { AuditEntry } from '@/lib/store/audit';
import { UtcTime } from '@/components/utc-time';
import { DataTable, filtersText, outcomeCell, sha256Column, type Column } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/card';

const dash = (value: string | number | null) => value ?? '—';

const COLUMNS: Column<AuditEntry>[] = [
  { id: 'seq', header: '#', className: 'text-slate-500', cell: (e) => e.seq },
  { id: 'at', header: 'At', nowrap: true, cell: (e) => <UtcTime iso={e.at} /> },
  { id: 'actor', header: 'Actor', cell: (e) => e.actor, truncate: (e) => e.actor },
  { id: 'role', header: 'Role', cell: (e) => dash(e.role) },
  { id: 'action', header: 'Action', cell: (e) => e.action },
  { id: 'target', header: 'Target', cell: (e) => dash(e.target), truncate: (e) => e.target ?? '—' },
  { id: 'filters', header: 'Filters', className: 'text-xs', cell: (e) => filtersText(e.filters), truncate: (e) => filtersText(e.filters) },
  { id: 'outcome', header: 'Outcome', cell: (e) => outcomeCell(e.outcome, e.errorCode) },
  { id: 'records', header: 'Records', align: 'right', cell: (e) => dash(e.records) },
  { id: 'bytes', header: 'Bytes', align: 'right', cell: (e) => dash(e.bytes) },
  sha256Column((e) => e.sha256),
  { id: 'address', header: 'Address', cell: (e) => dash(e.address) },
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
