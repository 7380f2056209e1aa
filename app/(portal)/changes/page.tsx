import type { Metadata } from 'next';
import { exampleDay } from '@/lib/time';
import { PortalLink } from '@/components/portal-link';
import { ChangesTable } from '@/components/changes/changes-table';
import { FeedStatusLine } from '@/components/changes/feed-status';
import { ErrorPanel } from '@/components/error-panel';
import { RefreshWhile } from '@/components/refresh-while';
import { Button } from '@/components/ui/button';
import { SelectField, TextField } from '@/components/ui/field';
import { FilterBar, filterChips, stringValues } from '@/components/ui/filter-bar';
import { plural } from '@/lib/plural';
import { can } from '@/lib/vocabulary/roles';
import { requirePage } from '@/lib/http/session';
import { CHANGE_KINDS } from '@/lib/changes/reconcile';
import { changesView } from '@/lib/changes/view';
import { pollNowAction } from './actions';
import type { PageSearchParams } from '@/lib/picks-api/filters';
import { PageHeader } from '@/components/ui/page-header';
import { linkClass } from '@/components/ui/text-link';

export const metadata: Metadata = { title: 'Changes' };

const POLLED: Record<string, string> = {
  started: 'A poll has started; this page updates itself when it ends.',
  running: 'A poll is already running; this page updates itself when it ends.',
  requested: 'The instance that polls was asked to poll at its next check (within 30 s); this page updates itself when it has.',
  ended: 'The poll you asked for has ended: what it found is below.',
  refused: 'Only admins may ask for a poll.',
  store: 'The store is not reachable: the poll could not be asked for.',
  failed: 'The poll could not be asked for.',
};

export default async function ChangesPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const params = await searchParams;
  const session = await requirePage('browse', '/changes');
  const view = await changesView(params, session.user.email);
  const value = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : '');
  // After "Poll now": the page refreshes itself until a poll has completed since the asking (at most two minutes).
  const askedAt = Number(value('at'));
  const asked = ['started', 'running', 'requested'].includes(value('polled')) && Number.isFinite(askedAt) && askedAt > 0;
  const lastComplete = view.status?.lastCompleteAt ? Date.parse(view.status.lastCompleteAt) : 0;
  const polled = asked && lastComplete >= askedAt && !view.status?.running ? 'ended' : value('polled');
  const download = (format: 'csv' | 'json') => {
    if (!view.ok) return '';
    const query = new URLSearchParams(view.query);
    query.delete('visit');
    if (view.filters.visit && view.visitSince) query.set('since', view.visitSince);
    query.set('format', format);
    return `/api/changes?${query.toString()}`;
  };

  return (
    <div className="space-y-4">
      <PageHeader title="Changes">
        What moved in the Picks API, newest first. The API pushes nothing, so the portal polls it and compares each record with the previous
        complete poll: <strong>new</strong> records, a <strong>status</strong> or <strong>result</strong> that moved, a record{' '}
        <strong>updated</strong> in any other way, and records <strong>withdrawn</strong> (no longer delivered while their event is in the
        window) or <strong>restored</strong>. A change that happens and reverts between two polls is not seen.
      </PageHeader>
      {view.status ? <FeedStatusLine status={view.status} /> : null}
      {can(session.user.role, 'poll') && (
        <form action={pollNowAction} className="flex items-center gap-3 text-sm">
          <Button type="submit">Poll now</Button>
          {polled ? (
            <span role="status" data-testid="poll-now" data-polled={polled}>
              {POLLED[polled] ?? ''}
            </span>
          ) : null}
          <RefreshWhile active={(asked && polled !== 'ended') || !!view.status?.running} />
        </form>
      )}
      <FilterBar
        action="/changes"
        label="Filter the changes"
        chips={filterChips('/changes', stringValues(params), {
          kind: 'Kind',
          sport: 'Sport',
          league: 'League',
          since: 'After',
          until: 'Until',
          visit: 'Since my last visit',
        })}
        grid="sm:grid-cols-3 lg:grid-cols-6"
        extra={
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="visit" value="1" defaultChecked={value('visit') === '1'} />
            Since my last visit
          </label>
        }
      >
        <SelectField label="Kind of change" name="kind" options={CHANGE_KINDS} any="any" defaultValue={value('kind')} />
        <TextField label="Sport" name="sport" defaultValue={value('sport')} />
        <TextField label="League" name="league" defaultValue={value('league')} />
        <TextField label="Detected after (UTC)" name="since" defaultValue={value('since')} placeholder={`${exampleDay(-1)} or …T06:00Z`} />
        <TextField label="Detected until (UTC)" name="until" defaultValue={value('until')} placeholder={exampleDay()} />
      </FilterBar>
      {!view.ok ? (
        <ErrorPanel error={view.error} retryHref="/changes" />
      ) : (
        <>
          <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
            <span data-testid="changes-count">
              {view.entries.length === 0
                ? 'No changes match.'
                : view.older
                  ? `${view.entries.length}+ changes`
                  : plural(view.entries.length, 'change')}
              {view.filters.visit
                ? view.visitSince
                  ? ` since your last visit (it ended ${view.visitSince.replace('T', ' ').slice(0, 16)} UTC).`
                  : ' — this is your first visit: everything is new to you.'
                : ''}
            </span>
            {can(session.user.role, 'export') && (
              <span className="ml-auto flex gap-3">
                <a className={linkClass('font-medium')} href={download('csv')}>
                  Download CSV
                </a>
                <a className={linkClass('font-medium')} href={download('json')}>
                  Download JSON
                </a>
              </span>
            )}
          </div>
          {view.entries.length > 0 ? <ChangesTable entries={view.entries} /> : null}
          {view.older ? (
            <PortalLink
              className={linkClass('inline-block text-sm font-medium')}
              href={`/changes?${view.query ? `${view.query}&` : ''}before=${view.older}`}
            >
              Older changes →
            </PortalLink>
          ) : null}
        </>
      )}
    </div>
  );
}
