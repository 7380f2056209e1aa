import type { FeedStatus } from '@/lib/changes/view';
import { UtcTime } from '@/components/utc-time';
import { cardClass } from '@/components/ui/card';

/** The change feed's status line: last complete poll, next poll, window, records watched; a failed poll said plainly. */
export function FeedStatusLine({ status }: { status: FeedStatus }) {
  return (
    <section aria-label="Change feed status" className="space-y-2">
      <p className={cardClass('px-4 py-3 text-sm text-slate-700')} data-testid="feed-status">
        {status.lastCompleteAt ? (
          <>
            Last complete poll <UtcTime iso={status.lastCompleteAt} />
          </>
        ) : (
          <>No complete poll yet (the first one is the baseline and lists nothing)</>
        )}
        {status.running ? ' · polling now' : null}
        {status.polling ? (
          <>
            {' '}
            · next poll <UtcTime iso={status.nextPollAt} /> (every {status.pollSeconds} s)
          </>
        ) : (
          ' · polling is off on this portal (CHANGES_POLL_SECONDS=0)'
        )}
        {status.window ? (
          <>
            {' '}
            · window: events from <UtcTime iso={status.window.from} /> to <UtcTime iso={status.window.to} />
          </>
        ) : null}{' '}
        · <span data-testid="feed-watched">{status.watched.toLocaleString('en-GB')}</span> records watched
      </p>
      {status.walk ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900" data-testid="feed-walk">
          During the last complete poll {status.walk}.
        </p>
      ) : null}
      {status.failure ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900" data-testid="feed-failure">
          The poll started <UtcTime iso={status.failure.at} /> failed and recorded nothing: {status.failure.error}. The next poll starts
          over.
        </p>
      ) : null}
    </section>
  );
}
