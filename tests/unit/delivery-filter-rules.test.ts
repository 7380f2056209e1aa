import { describe, expect, it } from 'vitest';
import { leaguesFor, leaguesForSports } from '@/lib/sport-leagues';
import { filterProblems, type Vocabulary } from '@/lib/deliveries/filter-rules';
import { nearest } from '@/lib/nearest';

/** A delivery's filters against what the licence and the feed know: every problem at once, with the nearest name. */

const vocabulary: Vocabulary = {
  sports: ['Football', 'Tennis'],
  leagues: ['Premier League', 'La Liga', 'ATP Tour', 'Davis Cup'],
  leaguesBySport: { Football: ['La Liga', 'Premier League'], Tennis: ['ATP Tour'] },
};
const T = Date.parse('2026-11-25T12:00:00Z');

describe('delivery filter rules', () => {
  it('suggests the nearest allowed value, ignoring case, only when it is close', () => {
    expect(nearest('footbal', ['Football', 'Tennis'])).toBe('Football');
    expect(nearest('TENNIS', ['Football', 'Tennis'])).toBe('Tennis');
    expect(nearest('Curling', ['Football', 'Tennis'])).toBeNull();
  });

  it('names every wrong filter of a delivery at once', () => {
    expect(
      filterProblems('picks', { sport: 'Tennis', league: 'Premier League', status: 'done', to: 'tomorrow', colour: 'red' }, vocabulary, T),
    ).toEqual({
      'filters.colour': 'is not a filter of a picks delivery (its filters: sport, league, status, result, from, to, q, sort, dir)',
      'filters.league': 'is "Premier League", a Football league, not one of Tennis.',
      'filters.status': 'is "done", not a status. Allowed: upcoming, live, settled, void.',
      'filters.to':
        'is "tomorrow", not a date. Did you mean "today+1d"? Use a UTC day (2026-11-18), an ISO 8601 timestamp, or a date relative to each run: today, now, today-7d, now-24h, today+1d.',
    });
    expect(filterProblems('results', { status: 'settled' }, vocabulary, T)).toEqual({
      'filters.status': 'is not a filter of a results delivery (its filters: sport, league, result, from, to, q, sort, dir)',
    });
    expect(filterProblems('picks', { from: 'today', to: 'today-1d' }, vocabulary, T)['filters.to']).toMatch(/^must be after from/);
    expect(filterProblems('changes', { kind: 'withdrawn', sport: 'Football', league: 'La Liga' }, vocabulary, T)).toEqual({});
  });

  it('takes any value where neither the licence nor the feed names any', () => {
    expect(
      filterProblems('picks', { sport: 'Curling', league: 'Anything' }, { sports: null, leagues: null, leaguesBySport: {} }, T),
    ).toEqual({});
  });

  it('offers the leagues of the chosen sport, and licensed leagues the feed has not seen under any', () => {
    expect(leaguesFor(vocabulary, 'Tennis')).toEqual(['ATP Tour', 'Davis Cup']);
    expect(leaguesFor(vocabulary, 'Football')).toEqual(['Premier League', 'La Liga', 'Davis Cup']);
    expect(leaguesFor(vocabulary, '')).toEqual(vocabulary.leagues);
  });

  it('offers a token the leagues of the sports ticked, each once, and every league when none is', () => {
    expect(leaguesForSports(vocabulary, ['Tennis'])).toEqual(['ATP Tour', 'Davis Cup']);
    expect(leaguesForSports(vocabulary, ['Football', 'Tennis'])).toEqual(['Premier League', 'La Liga', 'Davis Cup', 'ATP Tour']);
    expect(leaguesForSports(vocabulary, [])).toEqual(vocabulary.leagues);
  });
});
