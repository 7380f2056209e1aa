import type { Metadata } from 'next';
import { requirePage } from '@/lib/http/session';
import { defaultExpiry, licenceChoices, tokensForPage } from '@/lib/http/token-pages';
import type { TokenView } from '@/lib/tokens/view';
import { DataTable, type Column } from '@/components/ui/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { PortalLink } from '@/components/portal-link';
import { StatusBadge } from '@/components/ui/badge';
import { TokenForm } from '@/components/tokens/token-form';
import { PageHeader } from '@/components/ui/page-header';
import { UtcTime } from '@/components/utc-time';
import { EmptyState } from '@/components/ui/card';
import { linkClass } from '@/components/ui/text-link';

export const metadata: Metadata = { title: 'API tokens' };

const COLUMNS: Column<TokenView>[] = [
  {
    id: 'name',
    primary: true,
    header: 'Token',
    cell: (t) => (
      <PortalLink href={`/tokens/${t.id}`} className={linkClass('font-medium')}>
        {t.name}
      </PortalLink>
    ),
  },
  { id: 'prefix', header: 'Begins', nowrap: true, cell: (t) => <code className="font-mono text-xs">{t.prefix}…</code> },
  { id: 'state', header: 'State', cell: (t) => <StatusBadge value={t.suspended ?? t.state} /> },
  { id: 'scope', header: 'May read', cell: (t) => t.scopeText, truncate: (t) => t.scopeText },
  { id: 'owner', header: 'Owner', cell: (t) => t.owner },
  { id: 'limits', header: 'Limits', nowrap: true, cell: (t) => `${t.ratePerMinute}/min, ${t.dailyRecords.toLocaleString('en')}/day` },
  {
    id: 'today',
    header: 'Today',
    align: 'right',
    nowrap: true,
    cell: (t) =>
      t.today ? `${t.today.records.toLocaleString('en')} records (${Math.round((t.today.records / t.dailyRecords) * 100)} %)` : '—',
  },
  { id: 'last', header: 'Last used', nowrap: true, cell: (t) => (t.lastUsedAt ? <UtcTime iso={t.lastUsedAt} /> : 'never') },
  { id: 'expires', header: 'Expires', nowrap: true, cell: (t) => <UtcTime iso={t.expiresAt} /> },
];

export default async function TokensPage() {
  const session = await requirePage('tokens', '/tokens');
  const [tokens, licence] = await Promise.all([tokensForPage(session.user), licenceChoices()]);
  return (
    <div className="space-y-4">
      <PageHeader title="API tokens">
        Tokens let the partner’s own systems (a website backend, a CMS, a loader) read the data through the portal’s API v1 at{' '}
        <code>/api/v1</code>, exactly as the Picks API answers, without the partner key: each only what its scope allows, within its own
        rate and daily quota. {session.user.role === 'admin' ? 'Admins see every token.' : 'You see the tokens you made.'} The{' '}
        <PortalLink href="/developers" className={linkClass('underline')}>
          API reference
        </PortalLink>{' '}
        describes every endpoint and tries requests with a token.
      </PageHeader>
      {!tokens.ok ? (
        <ErrorPanel error={tokens.error} retryHref="/tokens" />
      ) : tokens.value.length === 0 ? (
        <EmptyState testId="tokens-empty">
          No token yet. Make one with the form below for each system of yours that reads the API: it is shown once, and reads only what its
          scope allows.
        </EmptyState>
      ) : (
        <DataTable
          testId="tokens-table"
          cards
          label="API tokens"
          columns={COLUMNS}
          rows={tokens.value}
          rowKey={(t) => t.id}
          rowData={(t) => ({ 'data-token': t.id, 'data-state': t.state })}
        />
      )}
      <TokenForm licence={licence} defaultExpires={defaultExpiry()} />
    </div>
  );
}
