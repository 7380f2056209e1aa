import type { Metadata } from 'next';
import { AuditTable } from '@/components/admin/audit-table';
import { ErrorPanel } from '@/components/error-panel';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES } from '@/lib/audit/query';
import { recentAudit } from '@/lib/audit/view';
import { requirePage } from '@/lib/auth/session';
import type { PageSearchParams } from '@/lib/filters';

export const metadata: Metadata = { title: 'Audit trail' };

const field = 'mt-1 block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm';

export default async function AuditPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  await requirePage('audit', '/admin/audit');
  const params = await searchParams;
  const shown = await recentAudit(params);
  const value = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : '');
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Audit trail</h1>
        <p className="text-sm text-slate-600">
          Exports, sign-ins, sign-outs and user changes, newest first (the latest 200 that match). Times are UTC. The download holds every
          matching entry, with the hashes that chain them (check with <code>npm run audit -- verify</code>).
        </p>
      </div>
      <form
        role="search"
        aria-label="Filter the audit trail"
        action="/admin/audit"
        method="get"
        className="rounded-lg border border-slate-200 bg-white p-4"
      >
        <div className="grid grid-cols-2 gap-3 md:grid-cols-6">
          <label className="text-xs font-medium uppercase tracking-wide text-slate-600">
            From (UTC day or time)
            <input name="from" defaultValue={value('from')} className={field} />
          </label>
          <label className="text-xs font-medium uppercase tracking-wide text-slate-600">
            To
            <input name="to" defaultValue={value('to')} className={field} />
          </label>
          <label className="text-xs font-medium uppercase tracking-wide text-slate-600">
            Actor
            <input name="actor" defaultValue={value('actor')} className={field} />
          </label>
          <label className="text-xs font-medium uppercase tracking-wide text-slate-600">
            Action
            <select name="action" defaultValue={value('action')} className={field}>
              <option value="">Any action</option>
              {AUDIT_ACTIONS.map((action) => (
                <option key={action}>{action}</option>
              ))}
            </select>
          </label>
          <label className="text-xs font-medium uppercase tracking-wide text-slate-600">
            Outcome
            <select name="outcome" defaultValue={value('outcome')} className={field}>
              <option value="">Any outcome</option>
              {AUDIT_OUTCOMES.map((outcome) => (
                <option key={outcome}>{outcome}</option>
              ))}
            </select>
          </label>
          <div className="flex items-end">
            <button type="submit" className="rounded-md bg-brand-600 px-4 py-1.5 text-sm font-semibold text-white hover:bg-brand-700">
              Apply
            </button>
          </div>
        </div>
      </form>
      {shown.ok ? (
        <>
          <p className="flex gap-3 text-sm">
            <span className="font-medium text-slate-700">Download every matching entry:</span>
            <a className="text-brand-700 hover:underline" href={`/api/audit?${shown.query}${shown.query ? '&' : ''}format=csv`}>
              CSV
            </a>
            <a className="text-brand-700 hover:underline" href={`/api/audit?${shown.query}${shown.query ? '&' : ''}format=json`}>
              JSON
            </a>
          </p>
          <AuditTable entries={shown.entries} />
        </>
      ) : (
        <ErrorPanel error={shown.error} retryHref="/admin/audit" />
      )}
    </div>
  );
}
