import { describe, expect, it } from 'vitest';
import { parsePickFilters, parseResultFilters, withoutPaging } from '@/lib/picks-api/filters';

describe('filter parser', () => {
  it('reads every filter and normalises dates to UTC', () => {
    const parsed = parsePickFilters(
      new URLSearchParams(
        'sport=Football&league=Trinidad+%26+Tobago+Premier+League&status=settled&result=win&from=2026-11-01&to=2026-11-05&limit=200&cursor=ab%2B%2F%3D',
      ),
    );
    expect(parsed).toEqual({
      ok: true,
      filters: {
        sport: 'Football',
        league: 'Trinidad & Tobago Premier League',
        status: 'settled',
        result: 'win',
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-11-06T00:00:00.000Z',
        limit: 200,
        cursor: 'ab+/=',
      },
    });
  });

  it('treats a date-only "to" as through that UTC day, and converts offsets to UTC', () => {
    const parsed = parsePickFilters({ from: '2026-11-01T12:00:00+02:00', to: '2026-11-01' });
    expect(parsed.ok && parsed.filters).toEqual({ from: '2026-11-01T10:00:00.000Z', to: '2026-11-02T00:00:00.000Z' });
  });

  it('ignores empty fields and unknown parameters', () => {
    expect(parsePickFilters({ sport: '', league: '  ', foo: 'bar' })).toEqual({ ok: true, filters: {} });
  });

  it.each([
    ['status=finished', 'status'],
    ['result=draw', 'result'],
    ['from=yesterday', 'from'],
    ['from=2026-02-30', 'from'],
    ['to=9999-12-31', 'to must be a date'],
    ['to=2026-11-01T10:00', 'to'],
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=abc', 'limit'],
    ['sport=a&sport=b', 'sport was given more than once'],
    ['from=2026-11-05&to=2026-11-01', 'to must be after from'],
    [`league=${'x'.repeat(101)}`, 'league'],
    ['sport=%00bad', 'sport'],
  ])('rejects %s with a message naming it and echoing what was sent', (query, named) => {
    const parsed = parsePickFilters(new URLSearchParams(query));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toMatchObject({ status: 400, code: 'INVALID_FILTERS' });
    expect(parsed.error.message).toContain(named);
    expect(Object.keys(parsed.error.details ?? {}).length).toBeGreaterThan(0);
  });

  it('has no status filter for results', () => {
    const parsed = parseResultFilters({ status: 'upcoming', result: 'loss' });
    expect(parsed.ok && parsed.filters).toEqual({ result: 'loss' });
  });

  it('drops paging state for whole-set walks', () => {
    expect(withoutPaging({ sport: 'NFL', limit: 10, cursor: 'c' })).toEqual({ sport: 'NFL' });
  });
});
