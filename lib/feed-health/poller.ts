import type { Kysely } from 'kysely';
import type { UpstreamOutcome } from '../picks-api/client';
import { UPSTREAM_OUTCOMES } from '../vocabulary/upstream';
import { readFeed } from '../store/change-feed';
import { recentPolls } from '../store/feed-health';
import type { Database } from '../store/schema';
import type { PollFacts } from './compute';

/**
 * The poller's own state and the upstream's answers to it, feed-wide: one walk of the whole window serves
 * every sport, so its answers belong to no one sport. Shown above the sports on /health and in the API.
 */

const DAY_MS = 86_400_000;
const OUTCOMES = UPSTREAM_OUTCOMES;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export interface PollerView {
  /** This instance's polling period; null when it does not poll (another instance may). */
  periodSeconds: number | null;
  leaseHolder: string | null;
  leaseExpiresAt: string | null;
  lastPollAt: string | null;
  lastOutcome: 'complete' | 'failed' | 'running' | null;
  lastError: string | null;
  lastCompleteAt: string | null;
  failuresInARow: number;
}

export interface UpstreamView {
  /** Over the last 24 hours of polls. */
  polls: number;
  failedPolls: number;
  requests: number;
  /** Requests by how they ended, retries included. */
  answers: Record<UpstreamOutcome, number>;
  /** The share of requests answered 429, 0–1; null without requests. */
  throttledShare: number | null;
}

/** Sums the polls' answers (pure). */
export function upstreamFigures(polls: PollFacts[]): UpstreamView {
  const answers = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<UpstreamOutcome, number>;
  for (const poll of polls) for (const o of OUTCOMES) answers[o] += poll.answers?.[o] ?? 0;
  const requests = OUTCOMES.reduce((sum, o) => sum + answers[o], 0);
  return {
    polls: polls.length,
    failedPolls: polls.filter((p) => p.outcome === 'failed').length,
    requests,
    answers,
    throttledShare: requests === 0 ? null : Math.round((answers['429'] / requests) * 1000) / 1000,
  };
}

export async function pollerAndUpstream(db: Kysely<Database>, pollMs: number | null, now = Date.now()) {
  const [feed, polls] = await Promise.all([readFeed(db), recentPolls(db, now - DAY_MS, 20_000)]);
  const firstComplete = polls.findIndex((p) => p.outcome === 'complete');
  const poller: PollerView = {
    periodSeconds: pollMs === null ? null : pollMs / 1000,
    leaseHolder: feed.holder !== null && feed.leaseExpires > now ? feed.holder : null,
    leaseExpiresAt: feed.holder !== null && feed.leaseExpires > now ? iso(feed.leaseExpires) : null,
    lastPollAt: iso(feed.startedMs),
    lastOutcome: feed.outcome,
    lastError: feed.outcome === 'failed' ? feed.error : null,
    lastCompleteAt: iso(feed.completeMs),
    failuresInARow: firstComplete === -1 ? polls.length : firstComplete,
  };
  return { poller, upstream: upstreamFigures(polls) };
}
