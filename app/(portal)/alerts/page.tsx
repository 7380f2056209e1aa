import type { Metadata } from 'next';
import { requirePage } from '@/lib/http/session';
import { getConfig } from '@/lib/config';
import { alertsForPage, subscriptionsForPage } from '@/lib/alerts/view';
import { ALERT_KIND_LABELS, ALERT_KINDS, kindsFor, type AlertKind } from '@/lib/alerts/subscriptions';
import type { Role } from '@/lib/vocabulary/roles';
import { WebhookManager } from '@/components/alerts/webhook-manager';
import type { alertView } from '@/lib/alerts/log';
import { DataTable, type Column } from '@/components/ui/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { ResendButton } from '@/components/alerts/resend-button';
import { RefreshWhile } from '@/components/refresh-while';
import { StatusBadge } from '@/components/ui/badge';
import { PageHeader } from '@/components/ui/page-header';
import { UtcTime } from '@/components/utc-time';
import { EmptyState } from '@/components/ui/card';

/** A person's alert kinds as the form names them: every one their role may choose, or the chosen ones. */
function kindsText(kinds: readonly string[], role: string): string {
  if (kinds.length === 0) return 'none';
  const open = kindsFor(role as Role);
  if (open.length > 0 && open.every((kind) => kinds.includes(kind))) return `all ${open.length} their role may choose`;
  return kinds.map((kind) => ALERT_KIND_LABELS[kind as AlertKind] ?? kind).join('; ');
}

export const metadata: Metadata = { title: 'Alerts' };

type Row = ReturnType<typeof alertView>;

const webhookOutcomes = (a: Row) =>
  a.webhooks
    .map((w) => `${w.webhook}: ${w.status}${w.attempts > 1 ? ` (${w.attempts} tries)` : ''}${w.error ? `, ${w.error}` : ''}`)
    .join('; ');

const COLUMNS: Column<Row>[] = [
  { id: 'created', header: 'Raised', nowrap: true, cell: (a) => <UtcTime iso={a.createdAt} /> },
  { id: 'kind', header: 'Event', nowrap: true, cell: (a) => a.kind },
  { id: 'sport', header: 'Sport', cell: (a) => a.sport },
  { id: 'state', header: 'State', cell: (a) => <StatusBadge value={a.state} /> },
  {
    id: 'reason',
    header: 'Reason',
    cell: (a) => a.reason,
    truncate: (a) => [a.reason, a.detail && `Before: ${a.detail}`].filter(Boolean).join('. '),
  },
  { id: 'status', header: 'Email', cell: (a) => a.status },
  { id: 'attempts', header: 'Attempts', align: 'right', cell: (a) => a.attempts },
  {
    id: 'recipients',
    header: 'Sent to (email)',
    cell: (a) => a.recipients.join(', ') || '—',
    truncate: (a) => a.recipients.join(', ') || '—',
  },
  { id: 'error', header: 'Why not sent', cell: (a) => a.error ?? '—', truncate: (a) => a.error ?? '—' },
  {
    id: 'webhooks',
    header: 'Shared channels',
    cell: (a) => webhookOutcomes(a) || '—',
    truncate: (a) => webhookOutcomes(a) || '—',
  },
  {
    id: 'actions',
    header: '',
    nowrap: true,
    cell: (a) => (['sent', 'failed', 'unsent', 'dropped'].includes(a.status) ? <ResendButton id={a.id} /> : null),
  },
];

export default async function AlertsPage() {
  await requirePage('alerts', '/alerts');
  const config = getConfig();
  const [read, everyone] = await Promise.all([alertsForPage(), subscriptionsForPage()]);
  const available = ALERT_KINDS.map((kind) => ({ kind, label: ALERT_KIND_LABELS[kind] }));
  return (
    <div className="space-y-4">
      <PageHeader title="Alerts">
        Every alert, newest first (the latest 200): a state is held until it has lasted {config.ALERT_HOLD_SECONDS} s, then each alert is
        mailed to whoever chose its kind {config.SMTP_URL ? '' : '(no SMTP_URL is set: alerts are kept here, unmailed)'} and posted to every
        webhook that takes it, one message for the alerts of one kind; each failed send is tried again after 1, 5, 15 and 60 minutes, on its
        own.
      </PageHeader>
      {!read.ok ? (
        <ErrorPanel error={read.error} retryHref="/alerts" />
      ) : read.alerts.length === 0 ? (
        <EmptyState>No alert yet: every sport’s state has held.</EmptyState>
      ) : (
        <>
          <RefreshWhile
            active={read.alerts.some((a) => ['held', 'pending', 'sending'].includes(a.status))}
            everyMs={5_000}
            forMs={600_000}
          />
          <DataTable
            testId="alerts-table"
            label="Alerts"
            columns={COLUMNS}
            rows={read.alerts}
            rowKey={(a) => a.id}
            rowData={(a) => ({ 'data-alert': a.id, 'data-status': a.status })}
            cards
          />
        </>
      )}
      {read.ok && <WebhookManager webhooks={read.webhooks} available={available} />}
      {read.ok && read.digests.length > 0 && (
        <section aria-labelledby="digests" className="space-y-2">
          <h2 id="digests" className="font-semibold">
            Daily digests
          </h2>
          <DataTable
            testId="digests-table"
            columns={[
              { id: 'day', header: 'Day', nowrap: true, cell: (d) => d.day },
              { id: 'email', header: 'Person', cell: (d) => d.email },
              { id: 'alerts', header: 'Alerts', align: 'right', cell: (d) => d.alerts },
              { id: 'status', header: 'Outcome', cell: (d) => d.status },
              { id: 'attempts', header: 'Attempts', align: 'right', cell: (d) => d.attempts },
              { id: 'error', header: 'Why not sent', cell: (d) => d.error ?? '—', truncate: (d) => d.error ?? '—' },
            ]}
            rows={read.digests}
            rowKey={(d) => `${d.day} ${d.email}`}
            cards
          />
        </section>
      )}
      {everyone && (
        <section aria-labelledby="who" className="space-y-2">
          <h2 id="who" className="font-semibold">
            Who receives which alerts by email
          </h2>
          <DataTable
            testId="subscriptions-table"
            columns={[
              { id: 'email', header: 'Person', rowHeader: true, cell: (s) => s.email },
              { id: 'role', header: 'Role', cell: (s) => s.role },
              { id: 'kinds', header: 'Alerts', cell: (s) => kindsText(s.kinds, s.role), truncate: (s) => kindsText(s.kinds, s.role) },
              { id: 'delivery', header: 'When', cell: (s) => (s.delivery === 'digest' ? 'daily digest' : 'as they happen') },
              { id: 'chosen', header: 'Chosen', cell: (s) => (s.chosen ? 'by them' : 'role default') },
            ]}
            rows={everyone}
            rowKey={(s) => s.email}
            rowData={(s) => ({ 'data-email': s.email })}
            cards
          />
        </section>
      )}
    </div>
  );
}
