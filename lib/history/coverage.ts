import 'server-only';
import { fromStore } from '../store';
import { readFeed } from '../store/change-feed';
import { historySince } from '../store/history-read';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What a history answer can vouch for, stated in every file and on the page. */
export async function historyCoverage() {
  const [sinceMs, feed] = await fromStore((db) => Promise.all([historySince(db), readFeed(db)]));
  return {
    sinceMs,
    recordedSince: iso(sinceMs),
    eventWindow: feed.window,
    lastCompletePoll: iso(feed.completeMs),
    scope:
      'Only records the portal saw — by its change-feed polls, exports and deliveries — from recordedSince on; between polls a change is known from when it was first seen.',
  };
}
