import 'server-only';
import type { PortalConfig } from '../config';
import { processSlot } from '../process-state';
import { fromStore } from '../store';
import { requestPoll } from '../store/change-feed';
import type { FeedLoop, FeedSettings, PollAsked } from './poller';

// The feed's job in this process (lib/jobs/registry.ts runs it): instrumentation starts it, route handlers reach it.
export const feedSlot = processSlot<FeedLoop>('changeFeed');

/** "Poll now": this process polls at once if it holds the lease; otherwise the holder is asked to, at its next check. */
export async function pollNow(): Promise<PollAsked> {
  const feed = feedSlot.get();
  if (feed) return fromStore(() => feed.pollNow());
  const asked = Date.now();
  await fromStore((db) => requestPoll(db, asked));
  return { poll: 'requested', sinceMs: asked };
}

/** The change feed's settings from the configuration; null when polling is off (CHANGES_POLL_SECONDS=0). */
export function feedSettings(config: PortalConfig): FeedSettings | null {
  if (config.CHANGES_POLL_SECONDS === 0) return null;
  return {
    daysBack: config.CHANGES_DAYS_BACK,
    daysAhead: config.CHANGES_DAYS_AHEAD,
    pollMs: config.CHANGES_POLL_SECONDS * 1000,
    digestIgnore: config.CHANGES_DIGEST_IGNORE,
  };
}
