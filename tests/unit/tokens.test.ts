import { describe, expect, it } from 'vitest';
import { cursorKey, openCursor, sealCursor, type CursorBinding } from '@/lib/api-v1/cursor';
import { needsLicence, parseV1Query, planRequests } from '@/lib/api-v1/plan';
import { checkTokenSettings, inScope, type TokenScope } from '@/lib/tokens/scope';
import type { LicenceSummary } from '@/lib/vocabulary/licence';

/** API tokens' pure parts: settings named field by field, the scope, the plan of upstream requests, sealed cursors. */

const NOW = Date.parse('2026-11-20T12:00:00Z');
const licence = {
  sports: ['Football', 'Tennis', 'Basketball'],
  leagues: ['Serie A', 'Premier League', 'ATP Tour', 'NBA'],
} as LicenceSummary;
const valid = {
  name: 'Website backend',
  scope: { content: ['picks'], sports: ['Football'], leagues: [] },
  expiresAt: '2027-06-01T00:00:00Z',
  ratePerMinute: 120,
  dailyRecords: 100_000,
};
const scope = (over: Partial<TokenScope> = {}): TokenScope => ({
  content: ['picks', 'results'],
  sports: [],
  leagues: [],
  from: null,
  to: null,
  ...over,
});

describe('token settings', () => {
  it('reads a valid body, defaults the window to none, and never keeps duplicates', () => {
    const settings = checkTokenSettings({ ...valid, scope: { ...valid.scope, sports: ['Football', 'Football'] } }, null, licence, NOW);
    expect(settings).toEqual({
      name: 'Website backend',
      scope: { content: ['picks'], sports: ['Football'], leagues: [], from: null, to: null },
      expiresMs: Date.parse('2027-06-01T00:00:00Z'),
      ratePerMinute: 120,
      dailyRecords: 100_000,
    });
  });

  it('takes a name of one printable line only: no line breaks or control characters', () => {
    for (const name of ['Loader\nBcc: everyone@example.com', 'Load\rer', 'Tab\tbed', 'Zero\u200bwidth', 'Line\u2028sep'])
      expect(() => checkTokenSettings({ ...valid, name }, null, licence, NOW), JSON.stringify(name)).toThrow(
        /name must be one line of printable text/,
      );
    expect(checkTokenSettings({ ...valid, name: 'Site <!channel> & co' }, null, licence, NOW).name).toBe('Site <!channel> & co'); // shown escaped in chat
  });

  it('names every wrong field at once, in plain words', () => {
    let error: { status?: number; code?: string; details?: Record<string, string>; message?: string } = {};
    try {
      checkTokenSettings(
        {
          name: '',
          scope: {
            content: ['odds'],
            sports: ['Curling'],
            leagues: ['NHL'],
            from: '2027-01-01T00:00:00Z',
            to: '2026-01-01T00:00:00Z',
            colour: 1,
          },
          expiresAt: '2026-01-01T00:00:00Z',
          ratePerMinute: 0,
          dailyRecords: 2.5,
          owner: 'x',
        },
        null,
        licence,
        NOW,
      );
    } catch (caught) {
      error = caught as typeof error;
    }
    expect(error).toMatchObject({ status: 400, code: 'INVALID_TOKEN' });
    expect(Object.keys(error.details!).sort()).toEqual(
      [
        'dailyRecords',
        'expiresAt',
        'name',
        'owner',
        'ratePerMinute',
        'scope.colour',
        'scope.content',
        'scope.leagues',
        'scope.sports',
        'scope.to',
      ].sort(),
    );
    expect(error.details!['scope.sports']).toBe('"Curling" is not in the licence');
    expect(error.details!.expiresAt).toBe('must be in the future');
    expect(error.message).toMatch(/^Invalid token: /);
  });

  it('requires every setting when creating, none when changing', () => {
    expect(() => checkTokenSettings({}, null, licence, NOW)).toThrow(/name is required; scope.content is required; expiresAt is required/);
    const current = checkTokenSettings(valid, null, licence, NOW);
    expect(checkTokenSettings({ ratePerMinute: 30 }, current, licence, NOW)).toEqual({ ...current, ratePerMinute: 30 });
  });

  it('takes any sport or league when /me does not say what the licence grants', () => {
    expect(
      checkTokenSettings({ ...valid, scope: { content: ['results'], sports: ['Curling'], leagues: [] } }, null, null, NOW).scope.sports,
    ).toEqual(['Curling']);
  });
});

describe('the scope', () => {
  const record = { sport: 'Football', league: 'Serie A', eventDate: '2026-11-21T18:00:00Z' };
  it('keeps records of its sports, leagues and window; an empty list is every one', () => {
    expect(inScope(record, scope())).toBe(true);
    expect(inScope(record, scope({ sports: ['Tennis'] }))).toBe(false);
    expect(inScope(record, scope({ leagues: ['Premier League'] }))).toBe(false);
    expect(inScope(record, scope({ from: '2026-11-22T00:00:00.000Z' }))).toBe(false);
    expect(inScope(record, scope({ to: '2026-11-21T18:00:00.000Z' }))).toBe(false); // exclusive
    expect(inScope({ ...record, eventDate: 'soon' }, scope({ to: '2027-01-01T00:00:00.000Z' }))).toBe(false);
  });

  it('plans one upstream request per sport or league, refuses filters outside it, narrows dates', () => {
    expect(planRequests(scope(), { status: 'settled' })).toEqual([{ status: 'settled' }]);
    expect(planRequests(scope({ sports: ['Football', 'Tennis'] }), {})).toEqual([{ sport: 'Football' }, { sport: 'Tennis' }]);
    expect(planRequests(scope({ sports: ['Football'], leagues: ['Serie A', 'Premier League'] }), {})).toEqual([
      { sport: 'Football', league: 'Serie A' },
      { sport: 'Football', league: 'Premier League' },
    ]);
    expect(planRequests(scope({ sports: ['Football', 'Tennis'] }), { sport: 'Tennis' })).toEqual([{ sport: 'Tennis' }]);
    expect(() => planRequests(scope({ sports: ['Football'] }), { sport: 'Tennis' })).toThrow(/outside this token's scope/);
    expect(() => planRequests(scope({ leagues: ['Serie A'] }), { league: 'NBA' })).toThrow(expect.objectContaining({ status: 403 }));
    const window = scope({ from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' });
    expect(planRequests(window, { from: '2026-10-01T00:00:00Z', to: '2026-11-15T00:00:00Z' })).toEqual([
      { from: '2026-11-01T00:00:00.000Z', to: '2026-11-15T00:00:00Z' },
    ]);
    expect(() => planRequests(window, { from: '2027-01-01T00:00:00Z' })).toThrow(/date range/);
  });

  it('reads the query as the spec says: every wrong parameter named, the page size capped', () => {
    expect(parseV1Query(new URLSearchParams('sport=Football&limit=5000'), 'picks')).toEqual({
      filters: { sport: 'Football' },
      limit: 200,
      cursor: null,
    });
    expect(() => parseV1Query(new URLSearchParams('status=setled&colour=red&limit=0&from=2026-11-01&sprot=Football'), 'picks')).toThrow(
      'One or more filters are invalid: ' +
        'colour is not a parameter of /api/v1/picks; it takes sport, league, status, result, from, to, limit, cursor; ' +
        'sprot is not a parameter of /api/v1/picks (did you mean "sport"?); it takes sport, league, status, result, from, to, limit, cursor; ' +
        'status must be one of upcoming, live, settled, void (did you mean "settled"?); ' +
        'from must be a UTC timestamp such as 2026-11-01T00:00:00Z (for the whole day: 2026-11-01T00:00:00Z); ' +
        'limit must be a whole number from 1 (pages hold at most 200 records).',
    );
    expect(() => parseV1Query(new URLSearchParams('status=settled'), 'results')).toThrow(
      /status is not a parameter of \/api\/v1\/results; it takes sport, league, result, from, to, limit, cursor/,
    );
    expect(() => parseV1Query(new URLSearchParams('from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z&league='), 'picks')).toThrow(
      'One or more filters are invalid: league is empty (leave it out to not filter by it); to is before from (from is the inclusive start, to the exclusive end).',
    );
    // A name that is not a plain name is not echoed back, nor is a value.
    const hostile = new URLSearchParams([
      ['<script>alert(1)</script>', 'x'],
      ['a\r\nSet-Cookie: x', 'y'],
      ['result', '<b>won</b>'],
    ]);
    let message = '';
    try {
      parseV1Query(hostile, 'picks');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^One or more filters are invalid: \(a parameter name not shown\) is not a parameter of \/api\/v1\/picks/);
    expect(message).toContain('result must be one of win, loss, push, void.');
    expect(message).not.toMatch(/script|Set-Cookie|<b>/);
  });

  it('says why a sport or league is refused: unknown to the licence (with the nearest name), or outside the scope', () => {
    const football = scope({ sports: ['Football'] });
    const known = { sports: ['Football', 'Tennis', 'Basketball'], leagues: ['Serie A', 'NBA'] };
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return { status: (error as { status: number }).status, code: (error as { code: string }).code, message: (error as Error).message };
      }
      return null;
    };
    expect(needsLicence(football, { sport: 'Fotball' })).toBe(true);
    expect(needsLicence(football, { sport: 'Football' })).toBe(false);
    expect(needsLicence(scope(), { sport: 'Fotball' })).toBe(false); // an open scope: the upstream judges
    expect(refusal(() => planRequests(football, { sport: 'Fotball' }, known))).toEqual({
      status: 403,
      code: 'OUT_OF_SCOPE',
      message: 'The sport asked for is not one of the licence\'s sports (did you mean "Football"?).',
    });
    expect(refusal(() => planRequests(football, { sport: 'Tennis' }, known))?.message).toBe(
      'The sport "Tennis" is in the licence but outside this token\'s scope, which covers Football.',
    );
    expect(refusal(() => planRequests(scope({ leagues: ['Serie A'] }), { league: 'Serie B' }, null))?.message).toBe(
      'The league asked for is outside this token\'s scope, which covers Serie A (did you mean "Serie A"?).',
    );
    expect(refusal(() => planRequests(football, { sport: '<img src=x>' }, known))?.message).toBe(
      "The sport asked for is not one of the licence's sports.",
    );
  });
});

describe('sealed cursors', () => {
  const key = cursorKey('a-session-secret-of-some-length-0123456789');
  const binding: CursorBinding = { tokenId: 'tok_000000000001', endpoint: 'picks', filters: { sport: 'Football' }, scope: '{"a":1}' };

  it('round-trip for the same token, endpoint, filters and scope, and say nothing readable', () => {
    const cursor = sealCursor({ segment: 2, upstream: 'c:abc+/=' }, binding, key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toContain('abc');
    expect(openCursor(cursor, { ...binding, filters: { sport: 'Football' } }, key)).toEqual({ segment: 2, upstream: 'c:abc+/=' });
  });

  it('do not open when altered, another token’s, used with other filters, after a scope change, or under another key', () => {
    const cursor = sealCursor({ segment: 0, upstream: 'next' }, binding, key);
    const flipped = Buffer.from(cursor, 'base64url');
    flipped[flipped.length - 1]! ^= 1;
    expect(openCursor(flipped.toString('base64url'), binding, key)).toBeNull();
    expect(openCursor(cursor, { ...binding, tokenId: 'tok_000000000002' }, key)).toBeNull();
    expect(openCursor(cursor, { ...binding, filters: { sport: 'Tennis' } }, key)).toBeNull();
    expect(openCursor(cursor, { ...binding, endpoint: 'results' }, key)).toBeNull();
    expect(openCursor(cursor, { ...binding, scope: '{"a":2}' }, key)).toBeNull();
    expect(openCursor(cursor, binding, cursorKey('another-secret-0123456789-0123456789'))).toBeNull();
    expect(openCursor('bogus', binding, key)).toBeNull();
  });
});

describe('API v1 answers', () => {
  it('routes only its five endpoints, ids decoded', async () => {
    const { v1Endpoint } = await import('@/lib/api-v1/router');
    expect(v1Endpoint('/api/v1/picks')).toEqual({ name: 'picks' });
    expect(v1Endpoint('/api/v1/picks/pk%3Aa~b%2Bc%3D')).toEqual({ name: 'pick', id: 'pk:a~b+c=' });
    expect(v1Endpoint('/api/v1/picks/a/b')).toBeNull();
    expect(v1Endpoint('/api/v1/picks/%E0%A4%A')).toBeNull();
    expect(v1Endpoint('/api/v1/tokens')).toBeNull();
  });

  it('tells what the portal met upstream in the consumer’s terms, never the upstream’s own text', async () => {
    const { AppError } = await import('@/lib/errors');
    const { toV1Error, v1ErrorBody } = await import('@/lib/api-v1/errors');
    const throttled = toV1Error(new AppError({ code: 'THROTTLED', message: 'upstream said: key abc throttled', retryAfterSeconds: 7 }));
    expect(throttled).toMatchObject({ status: 429, code: 'THROTTLED', retryAfterSeconds: 7 });
    expect(v1ErrorBody(throttled, 'req_1').headers['Retry-After']).toBe('7');
    expect(toV1Error(new AppError({ code: 'UPSTREAM_UNAUTHORIZED' }))).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    expect(toV1Error(new AppError({ code: 'LICENCE_UNAVAILABLE' }))).toMatchObject({ status: 403, code: 'LICENCE_UNAVAILABLE' });
    expect(toV1Error(new Error('secret internals'))).toMatchObject({
      status: 500,
      code: 'INTERNAL',
      message: 'The portal hit an unexpected error.',
    });
    const unauthorized = v1ErrorBody(toV1Error(new (await import('@/lib/tokens/refusal')).V1Error(401, 'UNAUTHORIZED', 'x')), 'req_2');
    expect(unauthorized.headers).toMatchObject({
      'WWW-Authenticate': 'Bearer realm="picks-api"',
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    expect(JSON.parse(unauthorized.body)).toEqual({ error: { code: 'UNAUTHORIZED', message: 'x', requestId: 'req_2' } });
  });
});

describe('what a content is made of', () => {
  const record = {
    id: 'pk_1',
    sport: 'Tennis',
    odds: 1.9,
    oddsFormat: 'decimal',
    bookmaker: 'B',
    probability: 0.55,
    confidenceTier: 'A',
    reasoning: 'why',
    status: 'settled',
    result: 'win',
    settledAt: '2026-11-01T00:00:00Z',
  };
  it('leaves out the outcome for a picks-only token, the insight for a results-only one, nothing for both', async () => {
    const { projectRecord, withheldFields } = await import('@/lib/tokens/scope');
    const picksOnly = projectRecord(record, withheldFields(scope({ content: ['picks'] })));
    expect(picksOnly).not.toHaveProperty('result');
    expect(picksOnly).not.toHaveProperty('settledAt');
    expect(picksOnly).toMatchObject({ odds: 1.9, reasoning: 'why', status: 'settled' });
    const resultsOnly = projectRecord(record, withheldFields(scope({ content: ['results'] })));
    for (const field of ['odds', 'oddsFormat', 'bookmaker', 'probability', 'confidenceTier', 'reasoning'])
      expect(resultsOnly).not.toHaveProperty(field);
    expect(resultsOnly).toMatchObject({ id: 'pk_1', result: 'win', settledAt: '2026-11-01T00:00:00Z' });
    expect(projectRecord(record, withheldFields(scope()))).toBe(record); // both: the upstream's record as sent
  });
});
