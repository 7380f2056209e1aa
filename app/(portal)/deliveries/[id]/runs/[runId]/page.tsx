import type { Metadata } from 'next';
import { ReconciliationView } from '@/components/history/reconciliation';
import { PortalLink } from '@/components/portal-link';
import { requirePage } from '@/lib/http/session';
import { settle } from '@/lib/errors';
import { runReconciliation } from '@/lib/http/reconcile';
import { linkClass } from '@/components/ui/text-link';
import { PageTitle } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Delivery run' };

export default async function RunPage({ params }: { params: Promise<{ id: string; runId: string }> }) {
  const { id, runId } = await params;
  const here = `/deliveries/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}`;
  await requirePage('deliveries', here);
  const result = await settle(runReconciliation(id, runId));
  return (
    <div className="space-y-4">
      <PortalLink href={`/deliveries/${encodeURIComponent(id)}`} className={linkClass('text-sm')}>
        ← All runs of this delivery
      </PortalLink>
      <PageTitle>
        Run <span className="font-mono text-lg">{runId}</span>
      </PageTitle>
      <ReconciliationView
        result={result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error.toJSON() }}
        retryHref={here}
        correctionsHref={`/api/deliveries/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}/corrections?format=csv`}
      />
    </div>
  );
}
