import type { Metadata } from 'next';
import { DataTable, sha256Column, type Column } from '@/components/ui/data-table';
import { tableCounts } from '@/components/deliveries/table-counts';
import { PortalLink } from '@/components/portal-link';
import { notFound } from 'next/navigation';
import { ErrorPanel } from '@/components/error-panel';
import { UtcTime } from '@/components/utc-time';
import { requirePage } from '@/lib/http/session';
import { RESETTLED_DAYS, runsForPage } from '@/lib/deliveries/view';
import { plural } from '@/lib/plural';
import type { Run } from '@/lib/store/delivery-runs';
import { EmptyState } from '@/components/ui/card';
import { linkClass } from '@/components/ui/text-link';
import { TextLink } from '@/components/ui/text-link';
import { Badge } from '@/components/ui/badge';
import { PageTitle } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Delivery runs' };

const COLUMNS: Column<Run>[] = [
  { id: 'started', header: 'Started', nowrap: true, cell: (run) => <UtcTime iso={run.startedAt} /> },
  { id: 'trigger', header: 'Why', cell: (run) => `${run.trigger}${run.attempt > 1 ? ` (attempt ${run.attempt})` : ''}` },
  {
    id: 'outcome',
    header: 'Outcome',
    cell: (run) =>
      run.outcome === 'complete' && run.records === 0 ? (
        <span className="font-medium text-amber-800" title="Completed with 0 records: the filters matched nothing">
          complete, empty
        </span>
      ) : (
        run.outcome
      ),
  },
  {
    id: 'records',
    header: 'Records',
    align: 'right',
    cell: (run) => (
      <>
        {run.records ?? '—'}
        {run.outsideLicence ? (
          <>
            {' '}
            <Badge
              tone="warning"
              data-testid="outside-licence"
              title="Delivered as the upstream sent them; the run’s manifest names the first of them"
            >
              {`${run.outsideLicence} outside the licence`}
            </Badge>
          </>
        ) : null}
      </>
    ),
  },
  { id: 'bytes', header: 'Bytes', align: 'right', cell: (run) => run.bytes ?? '—' },
  sha256Column((run) => run.sha256),
  {
    id: 'file',
    header: 'File',
    className: 'font-mono text-xs',
    cell: (run) => (
      <>
        {run.file ?? '—'}
        {run.table ? (
          <div className="font-sans" data-testid="table-counts">
            {tableCounts(run.table)}
          </div>
        ) : null}
      </>
    ),
  },
  {
    id: 'duration',
    header: 'Duration',
    align: 'right',
    cell: (run) => (run.durationMs !== null ? `${(run.durationMs / 1000).toFixed(1)} s` : '—'),
  },
  { id: 'error', header: 'Error', className: 'text-red-800', cell: (run) => run.error ?? '' },
  {
    id: 'reconcile',
    header: '',
    cell: (run) =>
      run.outcome === 'complete' && run.records ? (
        <PortalLink className={linkClass()} href={`/deliveries/${run.deliveryId}/runs/${run.id}`}>
          Reconcile
        </PortalLink>
      ) : null,
  },
];

export default async function DeliveryRunsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePage('deliveries', `/deliveries/${encodeURIComponent(id)}`);
  const view = await runsForPage(id);
  if (view.ok && !view.delivery) notFound();
  return (
    <div className="space-y-4">
      <PortalLink href="/deliveries" className={linkClass('text-sm')}>
        ← All deliveries
      </PortalLink>
      {!view.ok ? (
        <ErrorPanel error={view.error} retryHref={`/deliveries/${encodeURIComponent(id)}`} />
      ) : (
        <>
          <PageTitle>Runs of “{view.delivery!.name}”</PageTitle>
          <p className="text-sm text-slate-600">The latest 200, newest first. Also in the audit trail as delivery:{view.delivery!.name}.</p>
          <p className="text-sm text-slate-700" data-testid="resettled" data-count={view.resettled}>
            Re-settled after delivery: {plural(view.resettled, 'record')} in the last {RESETTLED_DAYS} days (records delivered settled whose
            result has changed since; “Reconcile” on a run says which).
            {view.delivery!.corrections ? ' Corrections are sent after each poll that finds them.' : ''}
          </p>
          {view.runs.length === 0 ? (
            <EmptyState testId="runs-empty">
              No runs yet. The first runs at the next time its schedule names; “Run now” on{' '}
              <TextLink href="/deliveries">Deliveries</TextLink> runs it at once.
            </EmptyState>
          ) : (
            <DataTable
              testId="runs-table"
              cards
              label="Runs"
              columns={COLUMNS}
              rows={view.runs}
              rowKey={(run) => run.id}
              rowData={(run) => ({
                'data-run': run.id,
                'data-outcome': run.outcome,
                'data-empty': String(run.outcome === 'complete' && run.records === 0),
                'data-outside-licence': String(run.outsideLicence ?? 0),
              })}
            />
          )}
        </>
      )}
    </div>
  );
}
