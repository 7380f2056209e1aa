import type { Metadata } from 'next';
import { UtcTime } from '@/components/utc-time';
import { DataTable, filtersText, outcomeCell, sha256Column, type Column } from '@/components/ui/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { exportHistory, runAgainHref } from '@/lib/audit/history';
import type { AuditEntry } from '@/lib/store/audit';
import { requirePage } from '@/lib/http/session';
import { PageHeader } from '@/components/ui/page-header';
import { PortalLink } from '@/components/portal-link';
import { EmptyState } from '@/components/ui/card';
import { linkClass } from '@/components/ui/text-link';
import { TextLink } from '@/components/ui/text-link';
import { Badge } from '@/components/ui/badge';

export const metadata: Metadata = { title: 'My exports' };

const COLUMNS: Column<AuditEntry>[] = [
  { id: 'ended', header: 'Ended', nowrap: true, cell: (e) => <UtcTime iso={e.at} /> },
  { id: 'file', header: 'File', cell: (e) => e.target },
  {
    id: 'filters',
    header: 'Filters',
    className: 'text-xs',
    cell: (e) => filtersText(e.filters),
    truncate: (e) => (e.filters && Object.keys(e.filters).length ? filtersText(e.filters) : 'all records'),
  },
  {
    id: 'outcome',
    header: 'Outcome',
    cell: (e) => (
      <>
        {outcomeCell(e.outcome, e.errorCode)}
        {e.proof?.licence.result === 'outside' ? (
          // Delivered as the upstream sent them; the signed manifest names the first of them.
          <>
            {' '}
            <Badge tone="warning" data-testid="outside-licence">{`${e.proof.licence.outside.count} outside the licence`}</Badge>
          </>
        ) : null}
      </>
    ),
  },
  {
    id: 'records',
    header: 'Records',
    align: 'right',
    // An export that stopped saved no file: its count is what the portal had sent, which the browser may not all have received.
    cell: (e) => (e.records === null ? '—' : e.outcome === 'complete' ? e.records : `${e.records} sent, no file`),
  },
  sha256Column((e) => e.sha256),
  {
    id: 'actions',
    header: '',
    nowrap: true,
    cell: (e) => (
      <>
        <a className={linkClass()} href={runAgainHref(e)}>
          Run again
        </a>
        <a className={linkClass('ml-3')} href={`/api/exports/${e.seq}/manifest`}>
          Manifest
        </a>
        <a className={linkClass('ml-3')} href={`/api/exports/${e.seq}/manifest.jws`}>
          Signature
        </a>
        {e.outcome === 'complete' && (e.action === 'export.picks' || e.action === 'export.results') ? (
          <PortalLink className={linkClass('ml-3')} href={`/exports/${e.seq}`}>
            Reconcile
          </PortalLink>
        ) : null}
      </>
    ),
  },
];

export default async function ExportsPage() {
  const session = await requirePage('export', '/exports');
  const history = await exportHistory(session.user.email);
  return (
    <div className="space-y-4">
      <PageHeader title="My exports">
        Your latest 200 exports, newest first (times in UTC). Each has a manifest for whoever receives the file: the filters, the number of
        records, the sha256 of exactly the bytes sent, the licence and the times, and every record checked against the licence; its
        signature lets anyone holding the portal’s public key check it (
        <a className={linkClass('underline')} href="/verify-picks-file.mjs">
          the verifier
        </a>{' '}
        and{' '}
        <a className={linkClass('underline')} href="/picks-file-readers.mjs">
          its readers
        </a>
        , saved in one folder). “Run again” downloads the same filters anew.
      </PageHeader>
      {!history.ok ? (
        <ErrorPanel error={history.error} retryHref="/exports" />
      ) : history.entries.length === 0 ? (
        <EmptyState testId="exports-empty">
          No exports yet. Exports are made from <TextLink href="/picks">Picks</TextLink> or <TextLink href="/results">Results</TextLink>:
          filter the records, then choose CSV, JSON, JSON Lines or Parquet above the table. Each one you make is listed here, with its
          checksum.
        </EmptyState>
      ) : (
        <DataTable
          testId="exports-table"
          cards
          columns={COLUMNS}
          rows={history.entries}
          rowKey={(e) => e.seq}
          rowData={(e) => ({ 'data-export': e.seq })}
        />
      )}
    </div>
  );
}
