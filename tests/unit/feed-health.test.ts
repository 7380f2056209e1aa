import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RULES,
  feedHealth,
  licenceScope,
  overdueKind,
  rulesFor,
  scopeDifferences,
  type FeedFacts,
  type SportFacts,
} from '@/lib/feed-health/compute';
import { upstreamFigures } from '@/lib/feed-health/poller';

/** Each sport's health from what the poller saw: the state, the side the trouble is on, and the reason in words. */

const NOW = Date.parse('2026-11-25T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const feed = (over: Partial<FeedFacts> = {}): FeedFacts => ({
  now: NOW,
  pollMs: 5 * MIN,
  leaseHeld: true,
  lastCompleteMs: NOW - MIN,
  polls: [{ at: NOW - MIN, outcome: 'complete', code: null }],
  licensedSports: ['Football', 'Tennis'],
  cadences: {},
  ...over,
});
const sport = (name: string, over: Partial<SportFacts> = {}): SportFacts => ({
  sport: name,
  watched: 10,
  lastChangeMs: NOW - 10 * MIN,
  publicationLagSeconds: 30,
  overdue: { upcoming: 0, live: 0, unsettled: 0 },
  resettled24h: 0,
  withdrawn24h: 0,
  leagues: [],
  ...over,
});
const one = (f: FeedFacts, s: SportFacts) => feedHealth(f, [s])[0]!;

describe('feed health', () => {
  it('is healthy when polled, licensed, on cadence and nothing is overdue', () => {
    expect(one(feed({ cadences: { Football: 3600 } }), sport('Football'))).toEqual({
      sport: 'Football',
      state: 'healthy',
      side: null,
      reason: 'Polled and up to date',
    });
  });

  it('puts a refused key or lost access on the licence’s side, for every sport', () => {
    const refused = feed({ polls: [{ at: NOW - MIN, outcome: 'failed', code: 'UPSTREAM_UNAUTHORIZED' }] });
    expect(feedHealth(refused, [sport('Tennis'), sport('Football')]).map((h) => [h.sport, h.state, h.side, h.reason])).toEqual([
      ['Football', 'down', 'licence', 'The Picks API refused the partner key (401)'],
      ['Tennis', 'down', 'licence', 'The Picks API refused the partner key (401)'],
    ]);
    const lost = feed({ polls: [{ at: NOW - MIN, outcome: 'failed', code: 'LICENCE_UNAVAILABLE' }] });
    expect(one(lost, sport('Tennis'))).toMatchObject({
      state: 'down',
      side: 'licence',
      reason: 'The licence no longer grants access (403)',
    });
    expect(one(feed({ licensedSports: ['Tennis'] }), sport('Football'))).toMatchObject({
      state: 'down',
      side: 'licence',
      reason: 'The licence no longer lists this sport',
    });
  });

  it('puts nobody polling on the portal’s side', () => {
    expect(one(feed({ pollMs: null }), sport('Football'))).toMatchObject({ state: 'down', side: 'portal' });
    expect(one(feed({ leaseHeld: false, lastCompleteMs: NOW - 2 * HOUR }), sport('Football'))).toMatchObject({
      state: 'down',
      side: 'portal',
      reason: 'No instance has polled the feed for 2 h',
    });
    // A lease lapsing between two polls is not yet trouble.
    expect(one(feed({ leaseHeld: false, lastCompleteMs: NOW - 6 * MIN }), sport('Football')).state).toBe('healthy');
  });

  it('degrades on upstream failures and goes down after three in a row; a throttled share degrades', () => {
    const failed = (n: number, code = 'UPSTREAM_ERROR') =>
      feed({
        polls: [
          ...Array.from({ length: n }, (_, i) => ({ at: NOW - (i + 1) * MIN, outcome: 'failed' as const, code })),
          { at: NOW - 30 * MIN, outcome: 'complete' as const, code: null },
        ],
      });
    expect(one(failed(1), sport('Football'))).toMatchObject({
      state: 'degraded',
      side: 'upstream',
      reason: '1 poll in a row failed (UPSTREAM_ERROR)',
    });
    expect(one(failed(3, 'UPSTREAM_TIMEOUT'), sport('Football'))).toMatchObject({ state: 'down', side: 'upstream' });
    const throttled = feed({
      polls: [
        { at: NOW - MIN, outcome: 'complete', code: null },
        { at: NOW - 2 * MIN, outcome: 'failed', code: 'THROTTLED' },
        { at: NOW - 3 * MIN, outcome: 'failed', code: 'THROTTLED' },
        { at: NOW - 4 * MIN, outcome: 'complete', code: null },
      ],
    });
    expect(one(throttled, sport('Football'))).toMatchObject({
      state: 'degraded',
      side: 'upstream',
      reason: '2 of the last 4 polls were throttled (429)',
    });
    // Polls that completed after their 429s were retried count as throttled too; one 429 in four polls does not.
    const retried = (n: number) =>
      feed({
        polls: Array.from({ length: 4 }, (_, i) => ({
          at: NOW - (i + 1) * MIN,
          outcome: 'complete' as const,
          code: null,
          answers: { ok: 8, ...(i < n ? { '429': 1 } : {}) },
        })),
      });
    expect(one(retried(2), sport('Football')).reason).toBe('2 of the last 4 polls were throttled (429)');
    expect(one(retried(1), sport('Football')).state).toBe('healthy');
  });

  it('sums the upstream’s answers over the polls, retries included, with the share throttled', () => {
    expect(
      upstreamFigures([
        { at: NOW - MIN, outcome: 'complete', code: null, answers: { ok: 10, '429': 2 } },
        { at: NOW - 2 * MIN, outcome: 'failed', code: 'UPSTREAM_UNAUTHORIZED', answers: { '401': 1 } },
        { at: NOW - 3 * MIN, outcome: 'failed', code: 'UPSTREAM_TIMEOUT', answers: { timeout: 2, '5xx': 1 } },
        { at: NOW - 4 * MIN, outcome: 'complete', code: null },
      ]),
    ).toEqual({
      polls: 4,
      failedPolls: 2,
      requests: 16,
      answers: { ok: 10, '401': 1, '403': 0, '429': 2, '4xx': 0, '5xx': 1, timeout: 2, network: 0 },
      throttledShare: 0.125,
    });
    expect(upstreamFigures([]).throttledShare).toBeNull();
  });

  it('judges a league’s silence against its own cadence, naming the league', () => {
    const leagues = [
      { league: 'Premier League', watched: 4, lastChangeMs: NOW - 5 * MIN, overdue: 0 },
      { league: 'Serie A', watched: 3, lastChangeMs: NOW - 3 * HOUR, overdue: 0 },
    ];
    const cadences = { 'Football / Serie A': 3600 };
    expect(one(feed({ cadences }), sport('Football', { leagues }))).toMatchObject({
      state: 'degraded',
      side: 'upstream',
      reason: 'Serie A: No new or changed record for 3 h; the agreed cadence is 60 min',
    });
    expect(one(feed({ cadences: { 'Football / Premier League': 3600 } }), sport('Football', { leagues })).state).toBe('healthy');
    expect(one(feed({ cadences: { 'Football / Serie A': 1800 } }), sport('Football', { leagues })).state).toBe('down');
  });

  it('judges silence against the cadence agreed for the sport: degraded beyond it, down beyond three times it', () => {
    const cadences = { Football: 3600 };
    expect(one(feed({ cadences }), sport('Football', { lastChangeMs: NOW - 90 * MIN }))).toMatchObject({
      state: 'degraded',
      side: 'upstream',
      reason: 'No new or changed record for 90 min; the agreed cadence is 60 min',
    });
    expect(one(feed({ cadences }), sport('Football', { lastChangeMs: NOW - 4 * HOUR })).state).toBe('down');
    // No cadence agreed: silence is not judged.
    expect(one(feed(), sport('Football', { lastChangeMs: NOW - 48 * HOUR })).state).toBe('healthy');
  });

  it('degrades on picks overdue in their lifecycle, naming each kind with its threshold', () => {
    expect(one(feed(), sport('Football', { overdue: { upcoming: 2, live: 1, unsettled: 0 } }))).toMatchObject({
      state: 'degraded',
      side: 'upstream',
      reason: 'Lifecycle overdue: 2 picks still upcoming 30 min after the start; 1 pick still live 6 h after it',
    });
  });

  it('counts a pick overdue by its sport’s rules', () => {
    const at = (hoursAgo: number) => NOW - hoursAgo * HOUR;
    expect(overdueKind({ status: 'upcoming', eventMs: at(0.25) }, DEFAULT_RULES, NOW)).toBeNull();
    expect(overdueKind({ status: 'upcoming', eventMs: at(1) }, DEFAULT_RULES, NOW)).toBe('upcoming');
    expect(overdueKind({ status: 'live', eventMs: at(7) }, DEFAULT_RULES, NOW)).toBe('live');
    expect(overdueKind({ status: 'live', eventMs: at(13) }, DEFAULT_RULES, NOW)).toBe('unsettled');
    expect(overdueKind({ status: 'live', eventMs: at(9) }, rulesFor('Cricket'), NOW)).toBeNull();
    expect(overdueKind({ status: 'settled', eventMs: at(30) }, DEFAULT_RULES, NOW)).toBeNull();
    expect(overdueKind({ status: 'upcoming', eventMs: null }, DEFAULT_RULES, NOW)).toBeNull();
  });
});

describe('licence scope changes', () => {
  const scope = licenceScope({
    sports: ['Tennis', 'Football'],
    leagues: null,
    from: '2026-01-01',
    to: null,
    contentMode: 'full',
    channels: ['web'],
  });
  it('compares scopes field by field: lists as gained and lost, the rest as before and after', () => {
    expect(scope.sports).toEqual(['Football', 'Tennis']);
    const after = licenceScope({ ...scope, sports: ['Football', 'Golf'], to: '2027-05-24', channels: ['web'] });
    expect(scopeDifferences(scope, after)).toEqual([
      { field: 'sports', added: ['Golf'], removed: ['Tennis'] },
      { field: 'to', before: null, after: '2027-05-24' },
    ]);
    expect(scopeDifferences(scope, licenceScope({ ...scope, sports: ['Tennis', 'Football'] }))).toEqual([]);
    // A list that /me stops stating at all is a change too.
    expect(scopeDifferences(scope, { ...scope, channels: null })).toEqual([{ field: 'channels', added: [], removed: ['web'] }]);
  });
});
