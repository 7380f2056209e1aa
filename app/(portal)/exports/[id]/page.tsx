import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { filtersText } from '@/components/ui/data-table';
import { ReconciliationView } from '@/components/history/reconciliation';
import { PortalLink } from '@/components/portal-link';
import { UtcTime } from '@/components/utc-time';
import { requirePage } from '@/lib/http/session';
import { settle } from '@/lib/errors';
import { exportReconciliation, findExport } from '@/lib/http/reconcile';
import { linkClass } from '@/components/ui/text-link';
import { PageTitle } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Export' };

export default async function ExportPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const session = await requirePage('export', `/exports/${encodeURIComponent(id)}`);
  const file = await settle(findExport(id, session));
  if (!file.ok) notFound();
  const result = await settle(exportReconciliation(file.value));
  const info = result.ok ? result.value.export : null;
  const seq = file.value.auditSeq;
  return (
    <div className="space-y-4">
      <PortalLink href="/exports" className={linkClass('text-sm')}>
        ← My exports
      </PortalLink>
      <PageTitle>Export {info?.file ?? file.value.id}</PageTitle>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1 text-sm" data-testid="export-facts">
        <dt className="text-slate-500">Export id</dt>
        <dd className="font-mono text-xs">{file.value.id}</dd>
        <dt className="text-slate-500">Exported</dt>
        <dd>
          <UtcTime iso={new Date(file.value.atMs).toISOString()} /> by {file.value.actor}
        </dd>
        <dt className="text-slate-500">Filters</dt>
        <dd>{info ? filtersText(info.filters) : '—'}</dd>
        {seq !== null ? (
          <>
            <dt className="text-slate-500">Manifest</dt>
            <dd className="space-x-3">
              <a className={linkClass()} href={`/api/exports/${seq}/manifest`}>
                JSON
              </a>
              <a className={linkClass()} href={`/api/exports/${seq}/manifest.jws`}>
                Signature
              </a>
              <a className={linkClass()} href={`/api/exports/${file.value.id}/reconcile`}>
                Reconciliation (JSON)
              </a>
            </dd>
          </>
        ) : null}
      </dl>
      <ReconciliationView
        result={result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error.toJSON() }}
        retryHref={`/exports/${encodeURIComponent(id)}`}
      />
    </div>
  );
}
