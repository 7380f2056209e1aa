import type { changeCounts } from '@/lib/changes/view';
import type { deliveryAlerts } from '@/lib/deliveries/view';
import { RESETTLED_DAYS } from '@/lib/deliveries/thresholds';
import type { LicenceSummary } from '@/lib/vocabulary/licence';
import { datePresets } from '@/lib/date-presets';
import { daysUntil } from '@/lib/time';
import { plural } from '@/lib/plural';
import { Tile } from '@/components/overview/tile';
import { PicksTiles, ResultsTile } from '@/components/overview/record-tiles';
import { UtcTime } from '@/components/utc-time';

/**
 * "Is everything fine?" in one row: picks today and this week, results and hit rate this week (counted after
 * the page loads), deliveries, changes since the last visit, and the licence's days to expiry. Each tile
 * leads to its page.
 */
export function OverviewTiles({
  licence,
  changes,
  deliveries,
}: {
  licence: LicenceSummary | null;
  changes: Awaited<ReturnType<typeof changeCounts>>;
  /** null: the role has no deliveries (or the store could not say: then the tile says so). */
  deliveries: Awaited<ReturnType<typeof deliveryAlerts>> | undefined;
}) {
  const presets = datePresets();
  const [today, next7, last7] = ['today', 'next7', 'last7'].map((id) => presets.find((p) => p.id === id)!.range!);
  const daysLeft = daysUntil(licence?.expiresAt);
  return (
    <section aria-label="At a glance" className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6" data-testid="overview-tiles">
      <PicksTiles today={today!.from} week={next7!} />
      <ResultsTile week={last7!} />
      {deliveries !== undefined && <DeliveriesTile deliveries={deliveries} />}
      <Tile
        id="changes"
        href="/changes?visit=1"
        label="Changes since your visit"
        value={changes.ok ? changes.counts.total.toLocaleString('en-GB') : '—'}
        detail={
          changes.ok
            ? `${changes.counts.new} new, ${changes.counts.result} results, ${changes.counts.withdrawn} withdrawn`
            : 'The change feed could not be read.'
        }
      />
      <Tile
        id="licence"
        href="/licence"
        label="Licence expires"
        tone={daysLeft !== null && daysLeft <= 30 ? 'attention' : 'plain'}
        value={daysLeft === null ? '—' : daysLeft < 0 ? 'Expired' : plural(daysLeft, 'day')}
        detail={daysLeft === null ? 'No expiry stated' : <UtcTime iso={licence!.expiresAt} day />}
      />
    </section>
  );
}

function DeliveriesTile({ deliveries }: { deliveries: Awaited<ReturnType<typeof deliveryAlerts>> }) {
  if (!deliveries)
    return (
      <Tile
        id="deliveries"
        href="/deliveries"
        label="Deliveries"
        value="—"
        detail="The portal's store could not be read."
        tone="attention"
      />
    );
  const attention = deliveries.failing.length + deliveries.empty.length;
  const last = deliveries.lastRun;
  return (
    <Tile
      id="deliveries"
      href="/deliveries"
      label="Deliveries"
      tone={attention ? 'attention' : 'plain'}
      value={deliveries.count === 0 ? 'None' : attention ? `${attention} need attention` : 'All well'}
      detail={
        last ? (
          <>
            Last run {last.outcome === 'complete' ? `delivered ${plural(last.records ?? 0, 'record')}` : last.outcome},{' '}
            <UtcTime iso={last.startedAt} />
            {deliveries.resettled > 0 ? (
              <span data-testid="resettled" data-count={deliveries.resettled}>
                {' '}
                · {plural(deliveries.resettled, 'record')} re-settled after delivery ({RESETTLED_DAYS} days)
              </span>
            ) : null}
          </>
        ) : deliveries.count === 0 ? (
          'No delivery is set up'
        ) : (
          'No run yet'
        )
      }
    />
  );
}
