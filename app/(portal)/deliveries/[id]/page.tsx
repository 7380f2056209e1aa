import type { Metadata } from 'next';
import { DataTable, Sha256Cell } from '@/components/data-table';
import { PortalLink } from '@/components/portal-link';
import { notFound } from 'next/navigation';
import { ErrorPanel } from '@/components/error-panel';
import { UtcTime } from '@/components/utc-time';
import { requirePage } from '@/lib/auth/session';
import { runsForPage } from '@/lib/deliveries/view';

export const metadata: Metadata = { title: 'Delivery runs' };

export default async function DeliveryRunsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePage('deliveries', `/deliveries/${encodeURIComponent(id)}`);
  const view = await runsForPage(id);
  if (view.ok && !view.delivery) notFound();
  return (
    <div className="space-y-4">
      <PortalLink href="/deliveries" className="text-sm text-brand-700 hover:underline">
        ← All deliveries
      </PortalLink>
      {!view.ok ? (
        <ErrorPanel error={view.error} retryHref={`/deliveries/${encodeURIComponent(id)}`} />
      ) : (
        <>
          <h1 className="text-2xl font-semibold">Runs of “{view.delivery!.name}”</h1>
          <p className="text-sm text-slate-600">The latest 200, newest first. Also in the audit trail as delivery:{view.delivery!.name}.</p>
          {view.runs.length === 0 ? (
            <p className="rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-600">No runs yet.</p>
          ) : (
            <DataTable
              testId="runs-table"
              label="Runs"
              columns={['Started', 'Why', 'Outcome', 'Records', 'Bytes', 'sha256', 'File', 'Duration', 'Error']}
            >
              {view.runs.map((run) => (
                <tr key={run.id} data-run={run.id} data-outcome={run.outcome} className="border-t border-slate-100 align-top">
                  <td className="whitespace-nowrap px-3 py-2">
                    <UtcTime iso={run.startedAt} />
                  </td>
                  <td className="px-3 py-2">
                    {run.trigger}
                    {run.attempt > 1 ? ` (attempt ${run.attempt})` : ''}
                  </td>
                  <td className="px-3 py-2">{run.outcome}</td>
                  <td className="px-3 py-2 text-right">{run.records ?? '—'}</td>
                  <td className="px-3 py-2 text-right">{run.bytes ?? '—'}</td>
                  <Sha256Cell value={run.sha256} />
                  <td className="px-3 py-2 font-mono text-xs">{run.file ?? '—'}</td>
                  <td className="px-3 py-2 text-right">{run.durationMs !== null ? `${(run.durationMs / 1000).toFixed(1)} s` : '—'}</td>
                  <td className="px-3 py-2 text-red-800">{run.error ?? ''}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </>
      )}
    </div>
  );
}
