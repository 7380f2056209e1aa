import { describeDifference, type ScopeDifference } from '@/lib/feed-health/compute';
import { UtcTime } from '@/components/utc-time';
import { cardClass } from '@/components/ui/card';

const NAMES = {
  sports: 'Sports',
  leagues: 'Leagues',
  channels: 'Channels',
  from: 'Window from',
  to: 'Window to',
  contentMode: 'Content mode',
};

/** The licence's changes of scope (from /me, seen by the poller), newest first: what was gained and lost. */
export function LicenceChanges({ changes }: { changes: { at: string; changed: ScopeDifference[] }[] }) {
  return (
    <section aria-labelledby="licence-changes" className={cardClass('p-4 text-sm')}>
      <h2 id="licence-changes" className="font-semibold">
        Licence changes (30 days)
      </h2>
      {changes.length === 0 ? (
        <p className="mt-1 text-slate-600">The licensed scope has not changed.</p>
      ) : (
        <ul className="mt-2 space-y-2" data-testid="licence-changes">
          {changes.map((change) => (
            <li key={change.at}>
              <UtcTime iso={change.at} />
              <ul className="ml-4 list-disc">
                {change.changed.map((d) => (
                  <li key={d.field} data-field={d.field}>
                    <span className="font-medium">{NAMES[d.field]}</span>: {describeDifference(d)}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
