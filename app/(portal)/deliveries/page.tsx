import type { Metadata } from 'next';
import { DeliveryList } from '@/components/deliveries/delivery-list';
import { ErrorPanel } from '@/components/error-panel';
import { requirePage } from '@/lib/http/session';
import { deliveriesForPage } from '@/lib/deliveries/view';
import { filterVocabulary } from '@/lib/deliveries/filter-rules';
import { PageHeader } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Deliveries' };

export default async function DeliveriesPage() {
  const session = await requirePage('deliveries', '/deliveries');
  const [view, vocabulary] = await Promise.all([deliveriesForPage(session.user.email), filterVocabulary()]);
  return (
    <div className="space-y-4">
      <PageHeader title="Scheduled deliveries">
        Whole filtered sets, or the changes since the last successful run, delivered on a schedule (cron, UTC) to a folder on the server, an
        SFTP server, a webhook, an S3-compatible bucket or a table in your own PostgreSQL — complete or not at all: a file is made in full
        first, written under a temporary name and renamed after its last byte, with a signed manifest beside it (records, sha256, licence,
        times); a table takes each run in one transaction, its sync log beside it. Three failures in a row pause a delivery. Relative dates
        (<code>today-7d</code>, <code>now</code>) are worked out at each run.
      </PageHeader>
      {view.ok ? (
        <DeliveryList initial={view.deliveries} isAdmin={session.user.role === 'admin'} vocabulary={vocabulary} />
      ) : (
        <ErrorPanel error={view.error} retryHref="/deliveries" />
      )}
    </div>
  );
}
