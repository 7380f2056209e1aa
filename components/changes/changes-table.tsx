import { PortalLink } from '@/components/portal-link';
import { DataTable, type Column } from '@/components/ui/data-table';
import type { Lifecycle } from '@/lib/changes/reconcile';
import type { StoredChange } from '@/lib/store/changes';
import { StatusBadge } from '@/components/ui/badge';
import { UtcTime } from '@/components/utc-time';
import { linkClass } from '@/components/ui/text-link';

function Side({ life }: { life: Lifecycle | null }) {
  if (!life) return <span className="text-slate-500">not delivered</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <StatusBadge value={life.status} />
      {life.result ? <StatusBadge value={life.result} /> : null}
      <span className="text-xs text-slate-500">
        published <UtcTime iso={life.publishedAt} />
      </span>
    </span>
  );
}

const title = (entry: StoredChange) =>
  entry.display.homeTeam && entry.display.awayTeam
    ? `${entry.display.homeTeam} vs ${entry.display.awayTeam}`
    : (entry.display.eventDescription ?? entry.id);

const COLUMNS: Column<StoredChange>[] = [
  { id: 'detected', header: 'Detected', nowrap: true, cell: (e) => <UtcTime iso={e.detectedAt} /> },
  {
    id: 'kinds',
    header: 'Change',
    cell: (e) => (
      <span className="flex flex-wrap gap-1">
        {e.kinds.map((kind) => (
          <StatusBadge key={kind} value={kind} />
        ))}
      </span>
    ),
  },
  {
    id: 'pick',
    primary: true,
    header: 'Pick',
    cell: (e) => (
      <>
        <PortalLink className={linkClass('font-medium')} href={`/picks/${encodeURIComponent(e.id)}`}>
          {title(e)}
        </PortalLink>
        {e.display.selection ? (
          <div className="text-xs text-slate-600">{[e.display.marketType, e.display.selection].filter(Boolean).join(': ')}</div>
        ) : null}
      </>
    ),
  },
  {
    id: 'scope',
    header: 'Sport / league',
    cell: (e) => (
      <>
        {e.display.sport ?? '—'}
        <div className="text-xs text-slate-600">{e.display.league ?? ''}</div>
      </>
    ),
  },
  { id: 'event', header: 'Event', nowrap: true, cell: (e) => <UtcTime iso={e.display.eventDate} /> },
  {
    id: 'before',
    header: 'Before',
    cell: (e) => (e.kinds.includes('new') ? <span className="text-slate-500">not seen</span> : <Side life={e.before} />),
  },
  { id: 'after', header: 'After', cell: (e) => <Side life={e.after} /> },
];

/** The feed's entries, newest first: what changed, on which pick (linked), and its state before and after. */
export function ChangesTable({ entries }: { entries: StoredChange[] }) {
  return (
    <DataTable
      testId="changes-table"
      cards
      label="Changes"
      columns={COLUMNS}
      rows={entries}
      rowKey={(e) => e.seq}
      rowData={(e) => ({ 'data-change': e.id, 'data-kinds': e.kinds.join(' ') })}
    />
  );
}
