import 'server-only';
import { notePollPeriod, sportsHealth } from '../feed-health';
import { healthChanged, licenceChanged } from '../feed-health/signals';
import { resettled } from '../changes/signals';
import { pruneFeedHealth, resettlementsOf } from '../store/feed-health';
import type { PortalConfig } from '../config';
import { picksApi } from '../picks-api';
import type { Store } from '../store';
import { readFeed } from '../store/change-feed';
import { startFeedLoop } from '../changes/poller';
import { feedSettings, feedSlot } from '../changes/feed';
import { metrics } from '../metrics';
import { runCorrections } from '../deliveries/scheduler';
import { deliveryContext } from '../deliveries/start';
import { deliveredAmong } from '../store/delivered';

/** Starts this server process's part in the change feed (instrumentation, once per process). */
export function startChangeFeed(store: Store, config: PortalConfig): void {
  const settings = feedSettings(config);
  if (!settings) {
    console.log('[changes] polling is off (CHANGES_POLL_SECONDS=0): /changes shows what earlier polls found');
    return;
  }
  if (feedSlot.get()) return;
  void notePollPeriod(store.db, settings.pollMs).catch(() => undefined);
  const feed = startFeedLoop({
    db: store.db,
    walk: (filters, call) => picksApi().walkPicks(filters, call),
    instance: store.instance,
    settings,
    onPolled: (result, ms) => {
      const m = metrics();
      m.polls.inc({ outcome: result.outcome });
      m.pollSeconds.observe(ms / 1000);
      if (result.outcome === 'complete') {
        m.watched.set(result.watched);
        for (const [kind, count] of Object.entries(result.byKind)) m.changes.inc({ kind }, count);
      }
    },
    // After each poll: each sport's health, its changes of state logged (lib/feed-health); a week of it kept.
    afterPoll: async () => {
      const holdMs = config.ALERT_HOLD_SECONDS * 1000;
      await sportsHealth(store.db, settings.pollMs, {
        record: true,
        onChanged: (changed, previous) => healthChanged.publish({ db: store.db, changed, previous, holdMs }),
        onLicenceChange: (change) => licenceChanged.publish({ db: store.db, change }),
      });
      // Results that changed after a first settlement, as this poll found them, of records already delivered: an alert of their own.
      const poll = await readFeed(store.db);
      if (poll.outcome === 'complete' && poll.startedMs !== null) {
        const found = await resettlementsOf(store.db, new Date(poll.startedMs).toISOString());
        const delivered = await deliveredAmong(
          store.db,
          found.map((r) => r.id),
        );
        await resettled.publish({ db: store.db, found: found.filter((r) => delivered.has(r.id)), at: Date.now() });
      }
      await pruneFeedHealth(store.db, Date.now() - 8 * 86_400_000);
      // Deliveries that send corrections: what this poll found no longer true at their destinations (lib/history/corrections.ts).
      const deliveries = deliveryContext();
      if (deliveries && poll.outcome === 'complete' && poll.startedMs !== null) await runCorrections(deliveries, poll.startedMs);
    },
  });
  feedSlot.set(feed);
}
