import type { Metadata } from 'next';
import { exampleDay } from '@/lib/time';
import { FILE_FORMATS, RECORD_FORMATS, RECORD_FORMAT_LABELS, type RecordFormat } from '@/lib/vocabulary/formats';
import { DataTable, type Column } from '@/components/ui/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { FieldChanges } from '@/components/history/field-value';
import { PortalLink } from '@/components/portal-link';
import { SelectField, TextField } from '@/components/ui/field';
import { FilterBar } from '@/components/ui/filter-bar';
import { PageHeader } from '@/components/ui/page-header';
import { UtcTime } from '@/components/utc-time';
import { can } from '@/lib/vocabulary/roles';
import { requirePage } from '@/lib/http/session';
import { PICK_RESULTS, PICK_STATUSES, type PageSearchParams } from '@/lib/picks-api/filters';
import type { Difference } from '@/lib/history/moments';
import { historyView, SHOWN } from '@/lib/history/view';
import { pickHref } from '@/lib/picks-api/pick-view';
import { plural } from '@/lib/plural';
import { linkClass } from '@/components/ui/text-link';

export const metadata: Metadata = { title: 'History' };

type Row = Record<string, unknown>;
const text = (value: unknown) => (value === null || value === undefined ? '—' : String(value));
const idLink = (id: unknown) => (
  <PortalLink className={linkClass('font-mono text-xs')} href={pickHref(String(id))}>
    {String(id)}
  </PortalLink>
);

const RECORDS: Column<Row>[] = [
  { id: 'id', header: 'Record', cell: (r) => idLink(r.id) },
  { id: 'sport', header: 'Sport', cell: (r) => text(r.sport) },
  { id: 'league', header: 'League', cell: (r) => text(r.league) },
  { id: 'event', header: 'Event', nowrap: true, cell: (r) => (typeof r.eventDate === 'string' ? <UtcTime iso={r.eventDate} /> : '—') },
  {
    id: 'match',
    header: 'Match',
    truncate: (r) => `${text(r.homeTeam)} – ${text(r.awayTeam)}`,
    cell: (r) => `${text(r.homeTeam)} – ${text(r.awayTeam)}`,
  },
  { id: 'selection', header: 'Selection', truncate: (r) => text(r.selection), cell: (r) => text(r.selection) },
  { id: 'status', header: 'Status', cell: (r) => text(r.status) },
  { id: 'result', header: 'Result', cell: (r) => text(r.result) },
];

const DIFFERENCES: Column<Difference>[] = [
  { id: 'id', header: 'Record', cell: (d) => idLink(d.id) },
  { id: 'change', header: 'Change', cell: (d) => d.change },
  { id: 'match', header: 'Match', cell: (d) => `${text((d.after ?? d.before)?.homeTeam)} – ${text((d.after ?? d.before)?.awayTeam)}` },
  { id: 'fields', header: 'What changed', cell: (d) => <FieldChanges changes={d.fields} /> },
];

export default async function HistoryPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const params = await searchParams;
  const session = await requirePage('browse', '/history');
  const view = await historyView(params);
  const value = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : '');
  // The set at a moment comes as Parquet too; a difference is rows of changes, in the text formats.
  const downloads = (query: string, formats: readonly RecordFormat[] = FILE_FORMATS) =>
    can(session.user.role, 'export') ? (
      <span className="ml-auto flex flex-wrap gap-3">
        {formats.map((format) => (
          <a key={format} className={linkClass('font-medium')} href={`/api/history?${query}&format=${format}`}>
            Download {RECORD_FORMAT_LABELS[format]}
          </a>
        ))}
      </span>
    ) : null;

  return (
    <div className="space-y-4">
      <PageHeader title="History">
        What the feed said, and when: the records as the portal knew them at a moment, or what changed between two moments. The portal can
        only vouch for what it saw — by its change-feed polls, exports and deliveries — and only since it began keeping it
        {view.coverage?.recordedSince ? (
          <>
            {' '}
            (
            <span data-testid="recorded-since">
              <UtcTime iso={view.coverage.recordedSince} />
            </span>
            )
          </>
        ) : null}
        ; the feed watches events from {view.coverage?.eventWindow ? view.coverage.eventWindow.from.slice(0, 10) : '—'} to{' '}
        {view.coverage?.eventWindow ? view.coverage.eventWindow.to.slice(0, 10) : '—'}.
      </PageHeader>
      <FilterBar
        action="/history"
        label="Choose a moment"
        grid="sm:grid-cols-3 lg:grid-cols-7"
        footer={
          <p className="mt-2 text-xs text-slate-500">
            Times are UTC ({exampleDay(-1)}T18:00Z). With “At”, From and To bound the event date; without it, they are two moments to
            compare.
          </p>
        }
      >
        <TextField label="At (UTC)" name="asOf" defaultValue={value('asOf')} placeholder={`${exampleDay(-1)}T18:00Z`} />
        <TextField label="From" name="from" defaultValue={value('from')} placeholder={exampleDay(-2)} />
        <TextField label="To" name="to" defaultValue={value('to')} placeholder={`${exampleDay(-1)}T18:00Z`} />
        <TextField label="Sport" name="sport" defaultValue={value('sport')} />
        <TextField label="League" name="league" defaultValue={value('league')} />
        <SelectField label="Status" name="status" options={PICK_STATUSES} any="any" defaultValue={value('status')} />
        <SelectField label="Result" name="result" options={PICK_RESULTS} any="any" defaultValue={value('result')} />
      </FilterBar>
      {!view.ok ? (
        <ErrorPanel error={view.error} retryHref="/history" />
      ) : view.mode === 'none' ? (
        <p className="text-sm text-slate-600" data-testid="history-empty">
          {view.coverage.recordedSince
            ? 'Choose a moment (At), or two (From and To) to see what changed between them.'
            : 'Nothing has been recorded yet: the history starts with the change feed’s first complete poll.'}
        </p>
      ) : view.mode === 'asOf' ? (
        <>
          <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
            <span data-testid="history-count" data-count={view.count}>
              {plural(view.count, 'record')} at <UtcTime iso={view.asOf} />
              {view.count > SHOWN ? ` (the first ${SHOWN} by id below; the files hold all)` : ''}.
            </span>
            {downloads(view.query, RECORD_FORMATS)}
          </div>
          {view.records.length > 0 ? (
            <DataTable
              testId="history-records"
              label="Records at that moment"
              columns={RECORDS}
              rows={view.records}
              rowKey={(r) => String(r.id)}
              rowData={(r) => ({ 'data-id': String(r.id) })}
            />
          ) : null}
        </>
      ) : (
        <>
          <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
            <span
              data-testid="difference-counts"
              data-added={view.counts.added}
              data-withdrawn={view.counts.withdrawn}
              data-changed={view.counts.changed}
            >
              Between <UtcTime iso={view.from} /> and <UtcTime iso={view.to} />: {plural(view.counts.added, 'record')} added,{' '}
              {view.counts.withdrawn} withdrawn, {view.counts.changed} changed
              {view.more ? ' (counting stopped there: download for all)' : ''}.
            </span>
            {downloads(view.query)}
          </div>
          {view.differences.length > 0 ? (
            <DataTable
              testId="history-differences"
              label="Differences"
              columns={DIFFERENCES}
              rows={view.differences}
              rowKey={(d) => d.id}
              rowData={(d) => ({ 'data-id': d.id, 'data-change': d.change })}
            />
          ) : null}
        </>
      )}
    </div>
  );
}
