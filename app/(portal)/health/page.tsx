import type { Metadata } from 'next';
import { can } from '@/lib/vocabulary/roles';
import { requirePage } from '@/lib/http/session';
import { getConfig } from '@/lib/config';
import { healthForPage, type SportHealthView } from '@/lib/feed-health';
import { rulesFor } from '@/lib/feed-health/compute';
import { DataTable, type Column } from '@/components/ui/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { CadenceField } from '@/components/feed-health/cadence-field';
import { HealthTimeline } from '@/components/feed-health/timeline';
import { LeagueDetails } from '@/components/feed-health/league-details';
import { LicenceChanges } from '@/components/feed-health/licence-changes';
import { PollerPanel } from '@/components/feed-health/poller-panel';
import { SubscriptionForm } from '@/components/alerts/subscription-form';
import { subscriptionForPage } from '@/lib/alerts/view';
import { StatusBadge } from '@/components/ui/badge';
import { PageHeader } from '@/components/ui/page-header';
import { UtcTime } from '@/components/utc-time';
import { JobsPanel } from '@/components/feed-health/jobs-panel';
import { jobsForPage } from '@/lib/jobs/view';
import { EmptyState } from '@/components/ui/card';

export const metadata: Metadata = { title: 'Feed health' };

const seconds = (s: number | null) =>
  s === null ? '—' : s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;

/** Picks overdue in words: "none", or "2 still upcoming · 1 not settled". */
const overdueText = (o: { upcoming: number; live: number; unsettled: number }) =>
  [o.upcoming ? `${o.upcoming} still upcoming` : '', o.live ? `${o.live} still live` : '', o.unsettled ? `${o.unsettled} not settled` : '']
    .filter(Boolean)
    .join(' · ') || 'none';

export default async function HealthPage() {
  const session = await requirePage('browse', '/health');
  const admin = can(session.user.role, 'poll');
  const config = getConfig();
  const pollMs = config.CHANGES_POLL_SECONDS > 0 ? config.CHANGES_POLL_SECONDS * 1000 : null;
  const [read, mine, jobs] = await Promise.all([
    healthForPage(pollMs),
    subscriptionForPage(session.user.email, session.user.role),
    jobsForPage(admin),
  ]);
  type Row = SportHealthView;
  const history = read.ok ? read.history : [];
  const columns: Column<Row>[] = [
    {
      id: 'sport',
      header: 'Sport',
      rowHeader: true,
      cell: (r) => (
        <>
          <span className="font-medium">{r.sport}</span>
          <LeagueDetails sport={r} admin={admin} />
        </>
      ),
    },
    { id: 'state', header: 'State', cell: (r) => <StatusBadge value={r.state} /> },
    {
      id: 'reason',
      header: 'Reason (whose side)',
      cell: (r) => (
        <>
          {r.reason}
          {r.side && <span className="block text-xs text-slate-600">the {r.side}’s side</span>}
        </>
      ),
    },
    { id: 'since', header: 'Since', nowrap: true, cell: (r) => <UtcTime iso={r.since} /> },
    {
      id: 'timeline',
      header: 'Last 7 days',
      cell: (r) => read.ok && <HealthTimeline entries={history.filter((e) => e.sport === r.sport)} from={read.from} to={read.now} />,
    },
    { id: 'watched', header: 'Watched', align: 'right', cell: (r) => r.watched.toLocaleString('en-GB') },
    { id: 'lastChange', header: 'Last new or changed', nowrap: true, cell: (r) => <UtcTime iso={r.lastChangeAt} /> },
    {
      id: 'lag',
      header: 'Publication lag',
      align: 'right',
      title: () => 'Median, publishedAt to first seen, new records of the last day',
      cell: (r) => seconds(r.publicationLagSeconds),
    },
    {
      id: 'overdue',
      header: 'Picks overdue',
      title: () => 'Picks past their sport’s thresholds (below the table): still upcoming, still live, or not settled',
      cell: (r) => overdueText(r.overdue),
    },
    {
      id: 'resettled',
      header: 'Re-settled / withdrawn (24 h)',
      align: 'right',
      nowrap: true,
      cell: (r) => `${r.resettled24h} / ${r.withdrawn24h}`,
    },
    {
      id: 'cadence',
      header: 'Agreed cadence',
      nowrap: true,
      cell: (r) => (admin ? <CadenceField sport={r.sport} seconds={r.cadenceSeconds} /> : seconds(r.cadenceSeconds)),
    },
  ];

  return (
    <div className="space-y-4">
      <PageHeader title="Feed health">
        Each sport as the change feed sees it at every poll (no request of its own to the Picks API): <strong>healthy</strong>,{' '}
        <strong>degraded</strong> or <strong>down</strong>, and whose side the trouble is on — the upstream’s (errors, throttling, silence
        beyond the cadence agreed with the provider, picks overdue in their lifecycle), the licence’s (the key refused, access lost, a sport
        no longer licensed) or the portal’s (nobody polling).
      </PageHeader>
      {!read.ok ? (
        <ErrorPanel error={read.error} retryHref="/health" />
      ) : read.sports.length === 0 ? (
        <EmptyState testId="health-empty">No sport yet: the feed has not completed a poll with records in its window.</EmptyState>
      ) : (
        <DataTable
          testId="health-table"
          columns={columns}
          cards
          rows={read.sports}
          rowKey={(r) => r.sport}
          rowData={(r) => ({ 'data-sport': r.sport, 'data-state': r.state })}
        />
      )}
      {read.ok && <PollerPanel poller={read.poller} upstream={read.upstream} admin={admin} />}
      {read.ok && <LicenceChanges changes={read.licenceChanges} />}
      {jobs.ok ? <JobsPanel jobs={jobs.jobs} detail={admin} /> : <ErrorPanel error={jobs.error} retryHref="/health" />}
      {mine && <SubscriptionForm {...mine} mailing={!!config.SMTP_URL} />}
      <p className="text-xs text-slate-600">
        Overdue thresholds by default: still upcoming {rulesFor('').upcomingAfterMinutes} min after the start, still live{' '}
        {rulesFor('').liveAfterHours} h after it, not settled {rulesFor('').unsettledAfterHours} h after it; longer for sports whose events
        last longer (listed in the docs: feed-health.md).{' '}
        {admin ? 'Silence is judged only for sports with an agreed cadence: set it here.' : ''}
      </p>
    </div>
  );
}
