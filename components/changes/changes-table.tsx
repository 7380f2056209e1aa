import { PortalLink } from '@/components/portal-link';
import { DataTable } from '@/components/data-table';
import type { Lifecycle } from '@/lib/changes/reconcile';
import type { StoredChange } from '@/lib/store/changes';
import { StatusBadge } from '@/components/status-badge';
import { UtcTime } from '@/components/utc-time';

const KIND_TONE: Record<string, string> = {
  new: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  status: 'bg-sky-50 text-sky-800 ring-sky-200',
  result: 'bg-violet-50 text-violet-800 ring-violet-200',
  updated: 'bg-amber-50 text-amber-900 ring-amber-200',
  withdrawn: 'bg-red-50 text-red-800 ring-red-200',
  restored: 'bg-teal-50 text-teal-800 ring-teal-200',
};

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

/** The feed's entries, newest first: what changed, on which pick (linked), and its state before and after. */
export function ChangesTable({ entries }: { entries: StoredChange[] }) {
  return (
    <DataTable
      testId="changes-table"
      label="Changes"
      columns={['Detected', 'Change', 'Pick', 'Sport / league', 'Event', 'Before', 'After']}
    >
      {entries.map((entry) => {
        const d = entry.display;
        const title = d.homeTeam && d.awayTeam ? `${d.homeTeam} vs ${d.awayTeam}` : (d.eventDescription ?? entry.id);
        return (
          <tr key={entry.seq} data-change={entry.id} data-kinds={entry.kinds.join(' ')} className="border-t border-slate-100 align-top">
            <td className="whitespace-nowrap px-3 py-2">
              <UtcTime iso={entry.detectedAt} />
            </td>
            <td className="px-3 py-2">
              <span className="flex flex-wrap gap-1">
                {entry.kinds.map((kind) => (
                  <span key={kind} className={`rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${KIND_TONE[kind] ?? ''}`}>
                    {kind}
                  </span>
                ))}
              </span>
            </td>
            <td className="px-3 py-2">
              <PortalLink className="font-medium text-brand-700 hover:underline" href={`/picks/${encodeURIComponent(entry.id)}`}>
                {title}
              </PortalLink>
              {d.selection ? <div className="text-xs text-slate-600">{[d.marketType, d.selection].filter(Boolean).join(': ')}</div> : null}
            </td>
            <td className="px-3 py-2">
              {d.sport ?? '—'}
              <div className="text-xs text-slate-600">{d.league ?? ''}</div>
            </td>
            <td className="whitespace-nowrap px-3 py-2">
              <UtcTime iso={d.eventDate} />
            </td>
            <td className="px-3 py-2">
              {entry.kinds.includes('new') ? <span className="text-slate-500">not seen</span> : <Side life={entry.before} />}
            </td>
            <td className="px-3 py-2">
              <Side life={entry.after} />
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
