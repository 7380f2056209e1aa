import type { PollerView, UpstreamView } from '@/lib/feed-health/poller';
import { UtcTime } from '@/components/utc-time';
import { cardClass } from '@/components/ui/card';

const ANSWERS: [keyof UpstreamView['answers'], string][] = [
  ['ok', 'OK'],
  ['401', '401 key refused'],
  ['403', '403 access'],
  ['429', '429 throttled'],
  ['5xx', '5xx'],
  ['4xx', 'other 4xx'],
  ['timeout', 'time-outs'],
  ['network', 'network'],
];

/** The poller's own state and the upstream's answers to it over a day: feed-wide, above the sports. */
export function PollerPanel({ poller, upstream, admin }: { poller: PollerView; upstream: UpstreamView; admin: boolean }) {
  const share = upstream.throttledShare === null ? '—' : `${(upstream.throttledShare * 100).toFixed(1)} %`;
  return (
    <section aria-labelledby="poller" className={cardClass('grid gap-4 p-4 text-sm md:grid-cols-2')}>
      <div>
        <h2 id="poller" className="font-semibold">
          The poller
        </h2>
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5" data-testid="poller-state">
          <dt className="text-slate-600">Polling</dt>
          <dd data-field="polling">{poller.leaseHolder ? 'one instance of the portal polls for all' : 'no instance is polling'}</dd>
          <dt className="text-slate-600">Polls every</dt>
          <dd>{poller.periodSeconds === null ? 'not on this instance (CHANGES_POLL_SECONDS=0)' : `${poller.periodSeconds} s`}</dd>
          <dt className="text-slate-600">Last poll</dt>
          <dd>
            <UtcTime iso={poller.lastPollAt} /> {poller.lastOutcome ? `(${poller.lastOutcome})` : ''}
            {poller.lastError && <span className="block text-red-700 dark:text-red-300">{poller.lastError}</span>}
          </dd>
          <dt className="text-slate-600">Last complete poll</dt>
          <dd>
            <UtcTime iso={poller.lastCompleteAt} />
          </dd>
          <dt className="text-slate-600">Failed in a row</dt>
          <dd data-field="failuresInARow">{poller.failuresInARow}</dd>
        </dl>
        {admin && (
          // Which instance holds the poller's lease: for whoever runs the instances, not for reading the feed.
          <details className="mt-2 text-xs text-slate-600" data-testid="poller-details">
            <summary className="cursor-pointer">Details for administrators</summary>
            <p className="mt-1">
              The instance polling (holding the change feed’s lease):{' '}
              <span className="font-mono" data-field="leaseHolder">
                {poller.leaseHolder ?? 'none'}
              </span>
            </p>
          </details>
        )}
      </div>
      <div>
        <h2 className="font-semibold">The upstream’s answers (24 h)</h2>
        <p className="text-xs text-slate-600">
          {upstream.polls} polls ({upstream.failedPolls} failed), {upstream.requests} requests, retries included; {share} throttled.
        </p>
        <dl className="mt-1 grid grid-cols-[auto_auto_auto_auto] gap-x-3 gap-y-0.5" data-testid="upstream-answers">
          {ANSWERS.map(([key, label]) => (
            <div key={key} className="contents">
              <dt className="text-slate-600">{label}</dt>
              <dd className="text-right tabular-nums" data-answer={key}>
                {upstream.answers[key]}
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}
