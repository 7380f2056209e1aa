import type { Kysely } from 'kysely';
import { readFeed } from '../store/change-feed';
import { takeLock } from '../store/locks';
import type { Database } from '../store/schema';
import { sportsHealth } from '.';
import { healthChanged } from './signals';

/**
 * The watchdog of "no instance polling". Only the polling instance judges the feed after its polls, so when
 * none polls nobody would log the portal's side going down: every instance runs this at each alert check.
 * When no instance holds the polling lease and no poll has completed for two periods, it logs each sport's
 * change to down (the portal's side) and publishes it (alerts listen), under a lock so that two watchdogs log it once.
 * The poller's next judgement, once some instance polls again, logs the recovery. No upstream request.
 */
export async function watchPolling(db: Kysely<Database>, options: { pollMs: number; holdMs: number; now: number }): Promise<number> {
  const { pollMs, now } = options;
  const feed = await readFeed(db);
  const stale = feed.completeMs === null ? Infinity : now - feed.completeMs;
  if ((feed.holder !== null && feed.leaseExpires > now) || stale <= 2 * pollMs) return 0;
  return db.transaction().execute(async (tx) => {
    await takeLock(tx, 'watchdog');
    let logged = 0;
    await sportsHealth(tx, pollMs, {
      record: true,
      now,
      licence: null,
      onChanged: async (changed, previous) => {
        logged = changed.length;
        await healthChanged.publish({ db: tx, changed, previous, holdMs: options.holdMs });
      },
    });
    return logged;
  });
}
