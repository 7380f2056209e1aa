import { describe, expect, it } from 'vitest';
import { decodeTrail, encodeTrail, hrefWith } from '@/lib/paging';
import {
  detectProbabilityScale,
  formatOdds,
  formatProbability,
  idFromSegment,
  initials,
  marketLabel,
  resolveLogoUrl,
} from '@/lib/picks-api/pick-view';

describe('logo URLs', () => {
  const base = { upstreamBase: 'https://api.example.com', origins: ['https://cdn.example.com', 'http://logos.example.com'] };
  it.each([
    ['https://cdn.example.com/a.svg', 'https://cdn.example.com/a.svg'],
    ['http://logos.example.com/b.png', 'http://logos.example.com/b.png'],
    ['https://api.example.com/logos/z.svg', 'https://api.example.com/logos/z.svg'],
    ['/logos/teams/x.svg', 'https://api.example.com/logos/teams/x.svg'],
    ['logos/y.svg', 'https://api.example.com/logos/y.svg'],
  ])('keeps %s as %s', (value, expected) => expect(resolveLogoUrl(value, base)).toBe(expected));

  it.each([
    null,
    undefined,
    '',
    '   ',
    42,
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:image/svg+xml,<svg/>',
    'blob:https://x/y',
    'https://user:pw@cdn.example.com/a.svg',
    'x'.repeat(3000),
    // Hosts outside the allowed origins would let a record plant a tracking pixel in every browser.
    'https://tracker.example/pixel.gif',
    'https://cdn.example.com.evil.example/a.svg',
    'http://cdn.example.com/a.svg',
    '//tracker.example/p.gif',
  ])('refuses %s (placeholder instead)', (value) => expect(resolveLogoUrl(value, base)).toBeNull());
});

describe('display helpers', () => {
  it('detects the probability scale from the data', () => {
    expect(detectProbabilityScale([0.52, null, 0.61])).toBe('unit');
    expect(detectProbabilityScale([52, 61])).toBe('percent');
    expect(formatProbability(0.525, 'unit')).toBe('52.5%');
    expect(formatProbability(52.5, 'percent')).toBe('52.5%');
    expect(formatProbability(null, 'unit')).toBe('—');
  });

  it('says a market as people do, on the table and the pick page alike', () => {
    expect(marketLabel('player_shots_on_target')).toBe('player shots on target');
    expect(marketLabel('total-goals')).toBe('total goals');
    expect(marketLabel('Match Winner')).toBe('Match Winner');
    expect(marketLabel(null)).toBe('—');
  });

  it('formats odds by their format', () => {
    expect([formatOdds(150, 'american'), formatOdds(-110, 'american'), formatOdds(1.85, 'decimal'), formatOdds(null, 'decimal')]).toEqual([
      '+150',
      '-110',
      '1.85',
      '—',
    ]);
  });

  it('makes initials for placeholders', () => {
    expect([initials('Real Almena CF'), initials('<b>x</b>'), initials(null), initials('Žalgiris Kaunas')]).toEqual([
      'RA',
      'BX',
      '?',
      'ŽK',
    ]);
  });

  it('decodes a dynamic segment exactly once', () => {
    expect(idFromSegment('pk%3Aepl%3A1~x%2By%3D')).toBe('pk:epl:1~x+y=');
    expect(idFromSegment('a%252Bb')).toBe('a%2Bb');
    expect(idFromSegment('%E0%A4%A')).toBeNull();
  });
});

describe('cursor trail', () => {
  it('round-trips, and a damaged trail only loses "Previous"', () => {
    expect(decodeTrail(encodeTrail(['', 'c+1/=', 'c 2']))).toEqual(['', 'c+1/=', 'c 2']);
    expect(decodeTrail('%%%')).toEqual([]);
    expect(decodeTrail(Buffer.from('{"a":1}').toString('base64url'))).toEqual([]);
    expect(decodeTrail(undefined)).toEqual([]);
  });

  it('builds links that change only what they say', () => {
    expect(hrefWith('/picks', new URLSearchParams('sport=A+%26+B&cursor=x'), { cursor: null, trail: 'T' })).toBe(
      '/picks?sport=A+%26+B&trail=T',
    );
  });
});

describe('times in UTC', () => {
  it('writes "day month year, hh:mm UTC" as en-GB does, for every month and around midnight', async () => {
    const { formatUtc } = await import('@/components/utc-time');
    const intl = new Intl.DateTimeFormat('en-GB', {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'UTC',
    });
    const sample = [Date.UTC(2026, 10, 22, 14, 5), Date.UTC(2026, 0, 2, 0, 0), Date.UTC(2025, 11, 31, 23, 59, 59, 999)];
    for (let month = 0; month < 12; month += 1) sample.push(Date.UTC(2027, month, 9 + month, month * 2, month * 5));
    for (const at of sample) {
      const expected = `${intl.format(new Date(at)).replace('Sept', 'Sep')} UTC`; // ICU versions differ on September
      expect(formatUtc(new Date(at))).toBe(expected);
    }
    expect(formatUtc(new Date('2026-11-22T14:05:30Z'))).toBe('22 Nov 2026, 14:05 UTC');
  });
});
