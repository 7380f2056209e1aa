/**
 * Feed health, sport by sport, from what the change feed's poller sees (no upstream request of its own):
 * healthy, degraded or down, the reason in words, and whose side the trouble is on: the upstream's (errors,
 * throttling, silence beyond the agreed cadence, records overdue in their lifecycle), the licence's (the key
 * refused, access lost, a sport no longer licensed: the spec's 401 and 403) or the portal's (nobody polling).
 * Pure: facts in, states out; lib/feed-health/facts.ts gathers the facts, and keeps the states' history.
 */

import type { HealthSide, HealthState, LicenceScope, PollFacts, SportFacts } from '../vocabulary/feed-health';
import type { z } from 'zod';
import type { scopeDifferenceSchema } from './answers';

export {
  noFacts,
  type HealthSide,
  type HealthState,
  type LeagueFacts,
  type LicenceScope,
  type PollFacts,
  type SportFacts,
  type UpstreamAnswers,
} from '../vocabulary/feed-health';

/** When a pick counts as overdue in its lifecycle, after its event's start. */
export interface LifecycleRules {
  /** Still `upcoming` this many minutes after the event started. */
  upcomingAfterMinutes: number;
  /** Still `live` this many hours after it started. */
  liveAfterHours: number;
  /** Not settled (or void) this many hours after it started. */
  unsettledAfterHours: number;
}

export const DEFAULT_RULES: LifecycleRules = { upcomingAfterMinutes: 30, liveAfterHours: 6, unsettledAfterHours: 12 };
/** Sports whose events last longer than the default allows for (a Test match's day, extra innings). */
export const SPORT_RULES: Record<string, Partial<LifecycleRules>> = {
  Cricket: { liveAfterHours: 10, unsettledAfterHours: 16 },
  Baseball: { liveAfterHours: 5 },
  'American Football': { liveAfterHours: 5 },
  Tennis: { liveAfterHours: 7 },
  Golf: { liveAfterHours: 12, unsettledAfterHours: 24 },
};

export const rulesFor = (sport: string): LifecycleRules => ({ ...DEFAULT_RULES, ...SPORT_RULES[sport] });

/** The key a league's agreed cadence is kept under, beside the sports' own ("Football / Premier League"). */
export const leagueKey = (sport: string, league: string) => `${sport} / ${league}`;

export interface FeedFacts {
  now: number;
  /** This portal polls at all (CHANGES_POLL_SECONDS > 0), and every how often. */
  pollMs: number | null;
  /** Some instance holds the polling lease now. */
  leaseHeld: boolean;
  lastCompleteMs: number | null;
  /** The newest first. */
  polls: PollFacts[];
  /** The sports /me lists now; null when it lists none (no sport can then be "no longer licensed"). */
  licensedSports: string[] | null;
  /** Seconds of silence agreed with the provider per sport; absent: silence is not judged. */
  cadences: Record<string, number>;
}

export interface SportHealth {
  sport: string;
  state: HealthState;
  side: HealthSide | null;
  reason: string;
}

const LICENCE_CODES: Record<string, string> = {
  UPSTREAM_UNAUTHORIZED: 'The Picks API refused the partner key (401)',
  LICENCE_UNAVAILABLE: 'The licence no longer grants access (403)',
};
const FAILURES_DOWN = 3;
const THROTTLED_SHARE = 0.25;

const duration = (ms: number) => {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
};
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What holds for every sport at once: the portal not polling, the key refused, the upstream failing. */
function feedWide(feed: FeedFacts): Omit<SportHealth, 'sport'> | null {
  if (feed.pollMs === null) return { state: 'down', side: 'portal', reason: 'No instance polls the feed (CHANGES_POLL_SECONDS=0)' };
  const stale = feed.lastCompleteMs === null ? Infinity : feed.now - feed.lastCompleteMs;
  if (!feed.leaseHeld && stale > 2 * feed.pollMs) {
    return {
      state: 'down',
      side: 'portal',
      reason: feed.lastCompleteMs === null ? 'No instance is polling the feed' : `No instance has polled the feed for ${duration(stale)}`,
    };
  }
  const latest = feed.polls[0];
  if (latest?.outcome === 'failed' && latest.code && LICENCE_CODES[latest.code]) {
    return { state: 'down', side: 'licence', reason: LICENCE_CODES[latest.code]! };
  }
  const failing = feed.polls.findIndex((poll) => poll.outcome === 'complete');
  const inARow = failing === -1 ? feed.polls.length : failing;
  if (inARow > 0) {
    const what = `${count(inARow, 'poll', 'polls')} in a row failed (${latest!.code ?? 'unknown error'})`;
    return { state: inARow >= FAILURES_DOWN || stale > 3 * feed.pollMs ? 'down' : 'degraded', side: 'upstream', reason: what };
  }
  // A poll met throttling when it failed on it, or when any of its requests was answered 429 (and retried).
  const throttled = feed.polls.filter((poll) => poll.code === 'THROTTLED' || (poll.answers?.['429'] ?? 0) > 0).length;
  if (feed.polls.length >= 4 && throttled / feed.polls.length > THROTTLED_SHARE) {
    return { state: 'degraded', side: 'upstream', reason: `${throttled} of the last ${feed.polls.length} polls were throttled (429)` };
  }
  return null;
}

/** Silence beyond an agreed cadence (seconds): degraded beyond it, down beyond three times it; null when none is agreed or it is kept. */
function silence(lastChangeMs: number | null, cadence: number | undefined, now: number): Omit<SportHealth, 'sport'> | null {
  if (!cadence) return null;
  const silent = lastChangeMs === null ? null : now - lastChangeMs;
  if (silent !== null && silent <= cadence * 1000) return null;
  const said = silent === null ? 'No new or changed record seen yet' : `No new or changed record for ${duration(silent)}`;
  return {
    state: silent === null || silent > 3 * cadence * 1000 ? 'down' : 'degraded',
    side: 'upstream',
    reason: `${said}; the agreed cadence is ${duration(cadence * 1000)}`,
  };
}

export function feedHealth(feed: FeedFacts, sports: SportFacts[]): SportHealth[] {
  const wide = feedWide(feed);
  const licensed = feed.licensedSports?.map((sport) => sport.toLowerCase());
  return sports
    .map((facts): SportHealth => {
      const { sport } = facts;
      if (wide) return { sport, ...wide };
      if (licensed && !licensed.includes(sport.toLowerCase())) {
        return { sport, state: 'down', side: 'licence', reason: 'The licence no longer lists this sport' };
      }
      const silent = silence(facts.lastChangeMs, feed.cadences[sport], feed.now);
      if (silent) return { sport, ...silent };
      // A league with a cadence of its own: its silence is the sport's trouble, named.
      for (const league of facts.leagues) {
        const quiet = silence(league.lastChangeMs, feed.cadences[leagueKey(sport, league.league)], feed.now);
        if (quiet) return { sport, ...quiet, reason: `${league.league}: ${quiet.reason}` };
      }
      const { upcoming, live, unsettled } = facts.overdue;
      if (upcoming + live + unsettled > 0) {
        const rules = rulesFor(sport);
        const parts = [
          upcoming ? `${count(upcoming, 'pick', 'picks')} still upcoming ${rules.upcomingAfterMinutes} min after the start` : '',
          live ? `${count(live, 'pick', 'picks')} still live ${rules.liveAfterHours} h after it` : '',
          unsettled ? `${count(unsettled, 'pick', 'picks')} not settled ${rules.unsettledAfterHours} h after it` : '',
        ].filter(Boolean);
        return { sport, state: 'degraded', side: 'upstream', reason: `Lifecycle overdue: ${parts.join('; ')}` };
      }
      return { sport, state: 'healthy', side: null, reason: 'Polled and up to date' };
    })
    .sort((a, b) => a.sport.localeCompare(b.sport));
}

/** Which lifecycle bucket a watched pick is overdue in, if any. */
export function overdueKind(
  pick: { status: string | null; eventMs: number | null },
  rules: LifecycleRules,
  now: number,
): 'upcoming' | 'live' | 'unsettled' | null {
  if (pick.eventMs === null) return null;
  const since = now - pick.eventMs;
  if (pick.status === 'upcoming' && since > rules.upcomingAfterMinutes * 60_000) {
    return since > rules.unsettledAfterHours * 3_600_000 ? 'unsettled' : 'upcoming';
  }
  if (pick.status === 'live' && since > rules.liveAfterHours * 3_600_000) {
    return since > rules.unsettledAfterHours * 3_600_000 ? 'unsettled' : 'live';
  }
  return null;
}

/** What a licence grants, as /me says it: a change of any of it is an event (its status and expiry are not scope). */

const sorted = (list: string[] | null) => (list ? [...list].sort() : null);

export function licenceScope(summary: LicenceScope): LicenceScope {
  return {
    sports: sorted(summary.sports),
    leagues: sorted(summary.leagues),
    from: summary.from,
    to: summary.to,
    contentMode: summary.contentMode,
    channels: sorted(summary.channels),
  };
}

export type ScopeDifference = z.infer<typeof scopeDifferenceSchema>;

/** What changed between two scopes, field by field (lists as what was added and removed). */
export function scopeDifferences(before: LicenceScope, after: LicenceScope): ScopeDifference[] {
  const out: ScopeDifference[] = [];
  for (const field of ['sports', 'leagues', 'channels'] as const) {
    const [was, now] = [before[field] ?? [], after[field] ?? []];
    const added = now.filter((x) => !was.includes(x));
    const removed = was.filter((x) => !now.includes(x));
    if (added.length || removed.length || (before[field] === null) !== (after[field] === null)) out.push({ field, added, removed });
  }
  for (const field of ['from', 'to', 'contentMode'] as const)
    if (before[field] !== after[field]) out.push({ field, before: before[field], after: after[field] });
  return out;
}

/** One difference in words: what a list gained and lost, or a value before → after. */
export function describeDifference(d: ScopeDifference): string {
  if ('added' in d)
    return (
      [d.added.length ? `gained ${d.added.join(', ')}` : '', d.removed.length ? `lost ${d.removed.join(', ')}` : '']
        .filter(Boolean)
        .join('; ') || 'now stated differently'
    );
  return `${d.before ?? 'not stated'} → ${d.after ?? 'not stated'}`;
}
