import 'server-only';
import { Gauge, type Registry } from 'prom-client';
import { getStore } from '../store';
import { readFeed } from '../store/change-feed';

/**
 * The change feed's state as every instance sees it in the store, read when Prometheus scrapes: how long ago
 * the last complete poll started (whoever made it), and whether this instance holds the polling lease. A
 * store that does not answer leaves both NaN for that scrape (portal_store_errors_total says why).
 */
export function feedGauges(registry: Registry) {
  let reading: Promise<{ since: number; held: number }> | null = null;
  const read = () =>
    (reading ??= (async () => {
      try {
        const store = await getStore();
        const feed = await readFeed(store.db);
        const now = Date.now();
        return {
          since: feed.completeMs === null ? NaN : (now - feed.completeMs) / 1000,
          held: feed.holder === store.instance && feed.leaseExpires > now ? 1 : 0,
        };
      } catch {
        return { since: NaN, held: NaN };
      } finally {
        setTimeout(() => (reading = null), 0); // one read serves both gauges of one scrape
      }
    })());
  return {
    feedSince: new Gauge({
      name: 'portal_feed_seconds_since_complete_poll',
      help: 'Seconds since the start of the last complete change-feed poll, by any instance (NaN: none yet, or the store is away)',
      registers: [registry],
      async collect() {
        this.set((await read()).since);
      },
    }),
    feedLease: new Gauge({
      name: 'portal_feed_lease_held',
      help: '1 when this instance holds the change-feed polling lease',
      registers: [registry],
      async collect() {
        this.set((await read()).held);
      },
    }),
  };
}
