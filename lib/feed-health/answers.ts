import { z } from 'zod';
import { HEALTH_SIDES, HEALTH_STATES } from '../vocabulary/feed-health';
import { UPSTREAM_OUTCOMES, type UpstreamOutcome } from '../vocabulary/upstream';

/**
 * What GET /api/feed-health answers (lib/http/feed-health.ts builds it as this type; the portal API's OpenAPI document is
 * made from it): each sport's health with the figures behind it, the poller, the upstream's answers over a day,
 * and the licence's recent changes of scope. Which instance polls is for admins only, as on /health.
 */

const when = z.string().nullable().meta({ description: 'ISO 8601, UTC; null: never.' });
const count = z.int().min(0);

const overdue = z
  .strictObject({ upcoming: count, live: count, unsettled: count })
  .meta({ description: 'Picks overdue in their lifecycle: still upcoming after the start, still live after the end, not settled.' });

export const leagueHealthSchema = z.strictObject({
  league: z.string(),
  watched: count,
  lastChangeAt: when,
  overdue: count,
  cadenceSeconds: z.int().nullable().meta({ description: 'The silence agreed with the provider for the league; null: not judged.' }),
});

export const sportHealthSchema = z
  .strictObject({
    sport: z.string(),
    state: z.enum(HEALTH_STATES),
    side: z.enum(HEALTH_SIDES).nullable().meta({ description: 'Whose side the problem is on; null when healthy.' }),
    reason: z.string().meta({ description: 'Why, in words.' }),
    since: z.string().meta({ description: 'Since when the state and side hold.' }),
    watched: count.meta({ description: 'Records of the sport in the feed’s window now.' }),
    publicationLagSeconds: z.number().nullable().meta({
      description: 'Median seconds from a record’s publishedAt to the poll that first saw it, over the last day’s new records.',
    }),
    overdue,
    resettled24h: count.meta({ description: 'Results changed after a first settlement, over the last day.' }),
    withdrawn24h: count,
    lastChangeAt: when,
    cadenceSeconds: z.int().nullable().meta({ description: 'The silence agreed with the provider; null: silence is not judged.' }),
    leagues: z.array(leagueHealthSchema),
  })
  .meta({ id: 'SportHealth' });

export const pollerSchema = z
  .strictObject({
    periodSeconds: z.number().nullable().meta({ description: 'This instance’s polling period; null when it does not poll.' }),
    leaseHolder: z.string().nullable().optional().meta({ description: 'Admins only: the instance polling now, if any.' }),
    leaseExpiresAt: when.optional().meta({ description: 'Admins only: when its hold on the poller ends unless renewed.' }),
    lastPollAt: when,
    lastOutcome: z.enum(['complete', 'failed', 'running']).nullable(),
    lastError: z.string().nullable(),
    lastCompleteAt: when,
    failuresInARow: count,
  })
  .meta({ id: 'FeedPoller' });

export const upstreamFiguresSchema = z
  .strictObject({
    polls: count.meta({ description: 'Over the last 24 hours.' }),
    failedPolls: count,
    requests: count,
    answers: z.strictObject(Object.fromEntries(UPSTREAM_OUTCOMES.map((o) => [o, count])) as Record<UpstreamOutcome, typeof count>),
    throttledShare: z.number().min(0).max(1).nullable().meta({ description: 'The share of requests answered 429; null without requests.' }),
  })
  .meta({ id: 'FeedUpstreamAnswers' });

const licenceScopeSchema = z.strictObject({
  sports: z.array(z.string()).nullable(),
  leagues: z.array(z.string()).nullable(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  contentMode: z.string().nullable(),
  channels: z.array(z.string()).nullable(),
});

/** One field of the licence's scope that changed (./compute.ts `scopeDifferences`). */
export const scopeDifferenceSchema = z.union([
  z.strictObject({ field: z.enum(['sports', 'leagues', 'channels']), added: z.array(z.string()), removed: z.array(z.string()) }),
  z.strictObject({ field: z.enum(['from', 'to', 'contentMode']), before: z.string().nullable(), after: z.string().nullable() }),
]);

export const licenceChangeSchema = z.strictObject({
  at: z.string(),
  before: licenceScopeSchema,
  after: licenceScopeSchema,
  changed: z.array(scopeDifferenceSchema),
});

export const feedHealthAnswerSchema = z
  .strictObject({
    sports: z.array(sportHealthSchema),
    poller: pollerSchema,
    upstream: upstreamFiguresSchema,
    licenceChanges: z.array(licenceChangeSchema).meta({ description: 'The last 30 days, newest first.' }),
    checkedAt: z.string(),
  })
  .meta({ id: 'FeedHealth' });

export type FeedHealthAnswer = z.infer<typeof feedHealthAnswerSchema>;

const MIN_SECONDS = 60;
const MAX_SECONDS = 30 * 86_400;

/** What PUT /api/feed-health/cadences takes: each sport's agreed silence in seconds, or null to remove it. */
export const cadenceBody = z.strictObject({
  cadences: z.record(
    z.string().trim().min(1, 'must name a sport').max(100, 'must be at most 100 characters'),
    z
      .number({ error: 'must be a number of seconds, or null to remove it' })
      .int('must be a whole number of seconds')
      .min(MIN_SECONDS, `must be at least ${MIN_SECONDS} seconds`)
      .max(MAX_SECONDS, `must be at most ${MAX_SECONDS} seconds (30 days)`)
      .nullable(),
  ),
});

/** What GET and PUT /api/feed-health/cadences answer: every sport's agreed cadence (lib/store/feed-health.ts `readCadences`). */
export const cadencesAnswer = z
  .strictObject({
    cadences: z.array(z.strictObject({ sport: z.string(), seconds: z.int(), updatedBy: z.string(), updatedAt: z.string() })),
  })
  .meta({ id: 'FeedCadences' });
