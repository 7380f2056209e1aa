import type { FeedStatus } from '@/lib/changes/view';
import { UtcTime } from '@/components/utc-time';
import { cardClass } from '@/components/ui/card';
import { Notice } from '@/components/ui/notice';

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
        <Notice tone="warning" testId="feed-walk">
          During the last complete poll {status.walk}.
        </Notice>
      ) : null}
      {status.failure ? (
        <Notice tone="danger" role="alert" testId="feed-failure">
          The poll started <UtcTime iso={status.failure.at} /> failed and recorded nothing: {status.failure.error}. The next poll starts
          over.
        </Notice>
      ) : null}
    </section>
  );
}
