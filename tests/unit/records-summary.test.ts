import { describe, expect, it } from 'vitest';
import { createSummary, percent } from '@/lib/records/summary';
import type { Pick } from '@/lib/picks-api';

/** What a set of records adds up to: counts by status and result, hit rate by tier and league, records per event day. */

const pick = (over: Partial<Record<string, unknown>>) =>
  ({
    id: 'x',
    sport: 'Football',
    league: 'Premier League',
    status: 'settled',
    result: 'win',
    confidenceTier: 'A',
    eventDate: '2026-11-20T15:00:00Z',
    ...over,
  }) as unknown as Pick;

describe('records summary', () => {
  it('counts results, and the hit rate is wins over wins and losses (a push or a void is neither)', () => {
    const s = createSummary(100);
    for (const over of [
      { result: 'win' },
      { result: 'win', confidenceTier: 'B', league: 'La Liga' },
      { result: 'loss', confidenceTier: 'B', league: 'La Liga' },
      { result: 'push' },
      { result: 'void', status: 'void' },
      { result: null, status: 'upcoming', confidenceTier: null, eventDate: '2026-11-21T10:00:00Z' },
      { result: 'lost?', status: 'odd', league: '' },
    ])
      s.add(pick(over));
    const r = s.result(true);
    expect(r).toMatchObject({ records: 7, win: 2, loss: 1, push: 1, void: 1, unsettled: 2, complete: true });
    expect(r.hitRate).toBeCloseTo(2 / 3);
    expect(r.byStatus).toEqual({ upcoming: 1, live: 0, settled: 4, void: 1, other: 1 });
    expect(r.tiers.map((t) => [t.tier, t.records, t.win, t.loss, t.hitRate])).toEqual([
      ['(no tier)', 1, 0, 0, null],
      ['A', 4, 1, 0, 1],
      ['B', 2, 1, 1, 0.5],
    ]);
    // Leagues by how many records they hold.
    expect(r.leagues.map((l) => [l.league, l.records])).toEqual([
      ['Premier League', 4],
      ['La Liga', 2],
      ['(no league)', 1],
    ]);
    expect(r.byDay).toEqual({ '2026-11-20': 6, '2026-11-21': 1 });
  });

  it('stops at its cap and says the set holds more', () => {
    const s = createSummary(3);
    const taken = Array.from({ length: 5 }, () => s.add(pick({})));
    expect(taken).toEqual([true, true, true, false, false]);
    expect(s.result(false)).toMatchObject({ records: 3, complete: false, cap: 3 });
  });

  it('writes rates as percentages with one decimal, a dash for none', () => {
    expect(percent(2 / 3)).toBe('66.7%');
    expect(percent(null)).toBe('—');
  });
});
