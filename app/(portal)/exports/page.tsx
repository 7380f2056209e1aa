import type { Metadata } from 'next';
import { DataTable, Sha256Cell } from '@/components/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { exportHistory, runAgainHref } from '@/lib/audit/history';
import { requirePage } from '@/lib/auth/session';
import { PageHeader } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'My exports' };

export default async function ExportsPage() {
  const session = await requirePage('export', '/exports');
  const history = await exportHistory(session.user.email);
  return (
    <div className="space-y-4">
      <PageHeader title="My exports">
        Your latest 200 exports, newest first (times in UTC). Each has a manifest for whoever receives the file: the filters, the number of
        records, the sha256 of exactly the bytes sent, the licence and the times. “Run again” downloads the same filters anew.
      </PageHeader>
      {!history.ok ? (
        <ErrorPanel error={history.error} retryHref="/exports" />
      ) : history.entries.length === 0 ? (
        <p className="rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-600">No exports yet.</p>
      ) : (
        <DataTable testId="exports-table" columns={['Ended (UTC)', 'File', 'Filters', 'Outcome', 'Records', 'sha256', '']}>
          {history.entries.map((entry) => (
            <tr key={entry.seq} data-export={entry.seq} className="border-t border-slate-100 align-top">
              <td className="whitespace-nowrap px-3 py-2">{entry.at.replace('T', ' ').replace(/\.\d+Z$/, '')}</td>
              <td className="px-3 py-2">{entry.target}</td>
              <td className="px-3 py-2 font-mono text-xs">{new URLSearchParams(entry.filters ?? {}).toString() || 'all records'}</td>
              <td className="px-3 py-2" data-cell="outcome">
                {entry.outcome}
                {entry.errorCode ? <span className="ml-1 text-xs text-red-700">{entry.errorCode}</span> : null}
              </td>
              <td className="px-3 py-2 text-right">{entry.records ?? '—'}</td>
              <Sha256Cell value={entry.sha256} />
              <td className="whitespace-nowrap px-3 py-2">
                <a className="text-brand-700 hover:underline" href={runAgainHref(entry)}>
                  Run again
                </a>
                <a className="ml-3 text-brand-700 hover:underline" href={`/api/exports/${entry.seq}/manifest`}>
                  Manifest
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </div>
  );
}
