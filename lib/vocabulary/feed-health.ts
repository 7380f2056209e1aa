import type { LicenceSummary } from './licence';
import type { UpstreamOutcome } from './upstream';

/** What feed health is made of (lib/feed-health/compute.ts judges it; the store keeps the facts and states). */

export const HEALTH_STATES = ['healthy', 'degraded', 'down'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];
export const HEALTH_SIDES = ['upstream', 'licence', 'portal'] as const;
export type HealthSide = (typeof HEALTH_SIDES)[number];

/** What the poller has seen of one league of a sport. */
export interface LeagueFacts {
  league: string;
  watched: number;
  lastChangeMs: number | null;
  /** Picks overdue in their lifecycle, of any kind. */
  overdue: number;
}

/** What the poller has seen of one sport. */
export interface SportFacts {
  sport: string;
  /** Records of the sport in the feed's window now. */
  watched: number;
  /** The latest new or changed record of the sport, as the feed saw it. */
  lastChangeMs: number | null;
  /** Median seconds from a record's publishedAt to the poll that first saw it, over the last day's new records. */
  publicationLagSeconds: number | null;
  overdue: { upcoming: number; live: number; unsettled: number };
  /** Results that changed after a first settlement, and records withdrawn, over the last day. */
  resettled24h: number;
  withdrawn24h: number;
  /** The same, league by league (those with records watched or changed, and those with an agreed cadence). */
  leagues: LeagueFacts[];
}

/** A sport the poller has seen nothing of (yet). */
export const noFacts = (sport: string): SportFacts => ({
  sport,
  watched: 0,
  lastChangeMs: null,
  publicationLagSeconds: null,
  overdue: { upcoming: 0, live: 0, unsettled: 0 },
  resettled24h: 0,
  withdrawn24h: 0,
  leagues: [],
});

export interface PollFacts {
  at: number;
  outcome: 'complete' | 'failed';
  /** The portal's error code of a failed poll (UPSTREAM_UNAUTHORIZED, THROTTLED, …). */
  code: string | null;
  /** The upstream's answers to the poll's requests, retries included, by outcome. */
  answers?: UpstreamAnswers;
}

/** Upstream requests by how they ended (lib/picks-api/client.ts UpstreamOutcome). */
export type UpstreamAnswers = Partial<Record<UpstreamOutcome, number>>;

export type LicenceScope = Pick<LicenceSummary, 'sports' | 'leagues' | 'from' | 'to' | 'contentMode' | 'channels'>;
