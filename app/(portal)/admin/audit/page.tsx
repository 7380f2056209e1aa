import type { Metadata } from 'next';
import { AuditTable } from '@/components/admin/audit-table';
import { ErrorPanel } from '@/components/error-panel';
import { SelectField, TextField } from '@/components/ui/field';
import { FilterBar, filterChips, stringValues } from '@/components/ui/filter-bar';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES } from '@/lib/audit/query';
import { recentAudit } from '@/lib/audit/view';
import { requirePage } from '@/lib/http/session';
import type { PageSearchParams } from '@/lib/picks-api/filters';
import { PageHeader } from '@/components/ui/page-header';
import { linkClass } from '@/components/ui/text-link';

export const metadata: Metadata = { title: 'Audit trail' };

export default async function AuditPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  await requirePage('audit', '/admin/audit');
  const params = await searchParams;
  const shown = await recentAudit(params);
  const value = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : '');
  return (
    <div className="space-y-4">
      <PageHeader title="Audit trail">
        Exports, sign-ins, sign-outs and user changes, newest first (the latest 200 that match). Times are UTC. The download holds every
        matching entry, with the hashes that chain them (check with <code>npm run audit -- verify</code>).
      </PageHeader>
      <FilterBar
        action="/admin/audit"
        label="Filter the audit trail"
        grid="grid-cols-2 md:grid-cols-6"
        chips={filterChips('/admin/audit', stringValues(params), {
          from: 'From',
          to: 'To',
          actor: 'Actor',
          action: 'Action',
          outcome: 'Outcome',
        })}
      >
        <TextField label="From (UTC day or time)" name="from" defaultValue={value('from')} />
        <TextField label="To" name="to" defaultValue={value('to')} />
        <TextField label="Actor" name="actor" defaultValue={value('actor')} />
        <SelectField label="Action" name="action" options={AUDIT_ACTIONS} any="Any action" defaultValue={value('action')} />
        <SelectField label="Outcome" name="outcome" options={AUDIT_OUTCOMES} any="Any outcome" defaultValue={value('outcome')} />
      </FilterBar>
      {shown.ok ? (
        <>
          <p className="flex gap-3 text-sm">
            <span className="font-medium text-slate-700">Download every matching entry:</span>
            <a className={linkClass()} href={`/api/audit?${shown.query}${shown.query ? '&' : ''}format=csv`}>
              CSV
            </a>
            <a className={linkClass()} href={`/api/audit?${shown.query}${shown.query ? '&' : ''}format=json`}>
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
