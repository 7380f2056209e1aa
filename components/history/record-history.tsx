import { UtcTime } from '@/components/utc-time';
import type { HistoryEntry } from '@/lib/history/diff';
import { FieldChanges } from './field-value';
import { cardClass } from '@/components/ui/card';

const KIND: Record<HistoryEntry['kind'], string> = {
  first: 'first seen',
  changed: 'changed',
  withdrawn: 'withdrawn',
  restored: 'restored',
};

const BY: Record<string, string> = { poll: 'the change feed', export: 'an export', delivery: 'a delivery', api: 'a token’s API read' };

/** A record's versions as the portal saw them, newest first, each with the fields that changed from the one before. */
export function RecordHistory({ versions, recordedSince }: { versions: HistoryEntry[]; recordedSince: string | null }) {
  return (
    <section aria-labelledby="history" className={cardClass('p-5')} data-testid="record-history">
      <h2 id="history" className="font-semibold">
        History
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Every version the portal saw of this record, by its change feed, exports and deliveries
        {recordedSince ? (
          <>
            {' '}
            since <UtcTime iso={recordedSince} />
          </>
        ) : null}
        . A change made and undone between two sightings is not seen.
      </p>
      {versions.length === 0 ? (
        <p className="mt-3 text-sm text-slate-600">
          The portal has not seen this record yet: its history starts at the next poll that reads it.
        </p>
      ) : (
        <ol className="mt-3 space-y-3">
          {[...versions].reverse().map((entry) => (
            <li key={entry.version} className={cardClass('p-3 text-sm')} data-version={entry.version} data-kind={entry.kind}>
              <div className="flex flex-wrap items-baseline gap-x-3">
                <span className="font-medium">
                  Version {entry.version}: {KIND[entry.kind]}
                </span>
                <span className="text-slate-600">
                  first seen <UtcTime iso={entry.firstSeen} /> by {BY[entry.firstSeenBy] ?? entry.firstSeenBy}; last seen{' '}
                  <UtcTime iso={entry.lastSeen} /> by {BY[entry.lastSeenBy] ?? entry.lastSeenBy}
                </span>
              </div>
              {entry.kind === 'withdrawn' ? (
                <p className="mt-1 text-slate-600">No longer delivered by the Picks API while its event was in the feed’s window.</p>
              ) : entry.changes.length > 0 ? (
                <div className="mt-1">
                  <FieldChanges changes={entry.changes} />
                </div>
              ) : entry.kind === 'restored' ? (
                <p className="mt-1 text-slate-600">Delivered again, as it was before it was withdrawn.</p>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
