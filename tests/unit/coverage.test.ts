import { describe, expect, it } from 'vitest';
import { createCoverageAccumulator, daysOf } from '@/lib/coverage/aggregate';
import type { LicenceSummary } from '@/lib/vocabulary/licence';
import type { Pick } from '@/lib/picks-api/schemas';

const licence: LicenceSummary = {
  partner: 'P',
  licenceId: 'L',
  status: 'active',
  sports: ['Football', 'Tennis'],
  leagues: ['EPL', 'ATP', 'Serie A'],
  from: null,
  to: null,
  contentMode: 'full',
  channels: null,
  expiresAt: null,
};
const range = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-04T00:00:00.000Z' };

const pick = (p: Partial<Pick>): Pick =>
  ({
    sport: 'Football',
    league: 'EPL',
    status: 'upcoming',
    eventDate: '2026-11-01T15:00:00Z',
    publishedAt: '2026-10-30T10:00:00Z',
    ...p,
  }) as Pick;

describe('coverage aggregation', () => {
  it('counts per league by status, player share and freshness', () => {
    const acc = createCoverageAccumulator(range, licence);
    acc.add(pick({ status: 'upcoming', isPlayerPick: true, publishedAt: '2026-10-31T09:00:00Z' }));
    acc.add(pick({ status: 'settled', result: 'win', eventDate: '2026-11-02T15:00:00Z' }));
    acc.add(pick({ status: 'suspended' }));
    acc.add(pick({ sport: 'Basketball', league: 'NBA', status: 'live' }));
    const report = acc.result();
    expect(report.records).toBe(4);
    const epl = report.rows.find((r) => r.league === 'EPL')!;
    expect(epl).toMatchObject({
      total: 3,
      licensed: true,
      playerPicks: 1,
      lastPublishedAt: '2026-10-31T09:00:00Z',
      byStatus: { upcoming: 1, settled: 1, other: 1, live: 0, void: 0 },
    });
    expect(report.rows.find((r) => r.league === 'NBA')!.licensed).toBe(false);
  });

  it('finds the gaps: licensed not delivered, delivered not licensed, empty days per league', () => {
    const acc = createCoverageAccumulator(range, licence);
    acc.add(pick({ eventDate: '2026-11-01T15:00:00Z' }));
    acc.add(pick({ eventDate: '2026-11-03T15:00:00Z' }));
    acc.add(pick({ sport: 'Basketball', league: 'NBA' }));
    const report = acc.result();
    expect(report.range.days).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    expect(report.gaps).toEqual({ licensedNotDelivered: ['ATP', 'Serie A'], deliveredNotLicensed: ['NBA'], licenceStatesLeagues: true });
    expect(report.rows.find((r) => r.league === 'EPL')!.emptyDays).toEqual(['2026-11-02']);
  });

  it('says "not stated" (null) when /me names no leagues or sports', () => {
    const acc = createCoverageAccumulator(range, null);
    acc.add(pick({}));
    const report = acc.result();
    expect(report.rows[0]!.licensed).toBeNull();
    expect(report.gaps).toEqual({ licensedNotDelivered: [], deliveredNotLicensed: [], licenceStatesLeagues: false });
  });

  it('cannot tell missing leagues under a sport filter, and narrows them under a league filter', () => {
    expect(createCoverageAccumulator(range, licence, { sport: 'Football' }).result().gaps.licensedNotDelivered).toBeNull();
    expect(createCoverageAccumulator(range, licence, { league: 'ATP' }).result().gaps.licensedNotDelivered).toEqual(['ATP']);
  });

  it('stacks the timeline per day by sport', () => {
    const acc = createCoverageAccumulator(range, licence);
    acc.add(pick({}));
    acc.add(pick({ sport: 'Tennis', league: 'ATP' }));
    acc.add(pick({ eventDate: '2026-11-03T01:00:00Z' }));
    expect(acc.result().timeline).toEqual([
      { day: '2026-11-01', bySport: { Football: 1, Tennis: 1 }, total: 2 },
      { day: '2026-11-02', bySport: {}, total: 0 },
      { day: '2026-11-03', bySport: { Football: 1 }, total: 1 },
    ]);
  });

  it('measures field coverage: present and not null, nested fields by path', () => {
    const acc = createCoverageAccumulator(range, licence);
    acc.add(pick({ reasoning: 'x', probability: 0.5, eventMetadata: { competition: 'EPL', stage: null } }));
    acc.add(pick({ reasoning: null, eventMetadata: null }));
    const field = (f: string) => acc.result().fieldCoverage.find((c) => c.field === f)!;
    expect(field('reasoning')).toEqual({ field: 'reasoning', present: 1, share: 0.5 });
    expect(field('probability').share).toBe(0.5);
    expect(field('eventMetadata.competition').present).toBe(1);
    expect(field('eventMetadata.stage').present).toBe(0);
    expect(field('sport').share).toBe(1);
    expect(acc.result().fieldCoverage).toHaveLength(38);
  });

  it('mixes results per league, hit rate per tier (push and void excluded)', () => {
    const acc = createCoverageAccumulator(range, licence);
    for (const [result, tier] of [
      ['win', 'A'],
      ['win', 'A'],
      ['loss', 'A'],
      ['push', 'A'],
      ['loss', 'B'],
      ['void', 'B'],
    ] as const) {
      acc.add(pick({ status: 'settled', result, confidenceTier: tier }));
    }
    const report = acc.result();
    expect(report.rows[0]!.results).toEqual({ win: 2, loss: 2, push: 1, void: 1 });
    expect(report.tiers).toEqual([
      { tier: 'A', wins: 2, losses: 1, hitRate: 2 / 3 },
      { tier: 'B', wins: 0, losses: 1, hitRate: 0 },
    ]);
  });

  it.each([
    ['0–1', [0.55, 0.58, 0.91], 'unit'],
    ['0–100', [55, 58, 91], 'percent'],
  ])('detects a %s probability scale and buckets calibration by it', (_name, values, scale) => {
    const acc = createCoverageAccumulator(range, licence);
    values.forEach((p, i) => acc.add(pick({ status: 'settled', result: i === 1 ? 'loss' : 'win', probability: p })));
    const { calibration } = acc.result();
    expect(calibration.scale).toBe(scale);
    expect(calibration.buckets[5]).toEqual({ from: 0.5, to: 0.6, settled: 2, wins: 1, winRate: 0.5 });
    expect(calibration.buckets[9]).toMatchObject({ settled: 1, wins: 1, winRate: 1 });
    expect(calibration.buckets[0]!.winRate).toBeNull();
  });

  it('says there was no probability to calibrate', () => {
    const acc = createCoverageAccumulator(range, licence);
    acc.add(pick({ status: 'settled', result: 'win', probability: null }));
    expect(acc.result().calibration.scale).toBe('none');
  });

  it('lists the UTC days of a range', () => {
    expect(daysOf('2026-11-30T00:00:00.000Z', '2026-12-02T00:00:00.000Z')).toEqual(['2026-11-30', '2026-12-01']);
  });
});
