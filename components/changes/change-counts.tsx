import { PortalLink } from '@/components/portal-link';
import type { changeCounts } from '@/lib/changes/view';
import { CHANGE_KINDS } from '@/lib/changes/reconcile';
import { ErrorPanel } from '@/components/error-panel';
import { UtcTime } from '@/components/utc-time';
import { cardClass } from '@/components/ui/card';
import { linkClass } from '@/components/ui/text-link';

/** The overview's summary of the change feed: counts by kind since the person's last visit to /changes. */
export function ChangeCounts({ result }: { result: Awaited<ReturnType<typeof changeCounts>> }) {
  return (
    <section aria-labelledby="changes-summary" className={cardClass('p-5')}>
      <h2 id="changes-summary" className="font-semibold">
        Changes since your last visit
      </h2>
      {!result.ok ? (
        <div className="mt-3">
          <ErrorPanel error={result.error} retryHref="/" />
        </div>
      ) : (
        <>
          <p className="mt-1 text-sm text-slate-600">
            {result.since ? (
              <>
                Your last visit to Changes ended <UtcTime iso={result.since} />.
              </>
            ) : result.opened ? (
              'This is your first visit to Changes: these are all the changes the portal has recorded.'
            ) : (
              'You have not opened Changes yet: these are all the changes the portal has recorded.'
            )}
          </p>
          <ul className="mt-3 flex flex-wrap gap-3 text-sm" data-testid="change-counts">
            {CHANGE_KINDS.map((kind) => (
              <li key={kind}>
                <PortalLink
                  className="inline-flex items-baseline gap-1 rounded-md border border-slate-200 px-3 py-1.5 hover:bg-slate-50"
                  href={`/changes?visit=1&kind=${kind}`}
                  data-kind={kind}
                >
                  <span className="text-lg font-semibold tabular-nums">{result.counts[kind]}</span> {kind}
                </PortalLink>
              </li>
            ))}
            <li className="self-center">
              <PortalLink className={linkClass('font-medium')} href="/changes?visit=1">
                All {result.counts.total} →
              </PortalLink>
            </li>
          </ul>
        </>
      )}
    </section>
  );
}
