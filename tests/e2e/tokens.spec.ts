import { v1Contract } from '../support/v1-contract';
import { expect, test } from '../support/fixtures';
import { createPicksClient, walkPicks } from '../../clients/typescript/src';
import { expectNothingSecret, tokenPortals } from '../support/token-portals';

/**
 * API tokens end to end: two portals (`npm start`) on one PostgreSQL in front of a sandbox of this spec's own
 * (tests/support/token-portals.ts). Admins and editors make tokens; the project's API v1 contract suite runs against
 * the portal's /api/v1 with a whole-licence token; narrowed scopes walk exactly the upstream's own records for that
 * scope, also through the second portal, whose upstream ignores the sport and league filters; a content is its
 * fields; cursors cannot be altered or lent; neither the partner key nor a token is ever in an answer or a log line.
 * Across instances, owners, rates, webhooks and the pages: tokens-instances.spec.ts.
 */

const portals = tokenPortals({ sandboxPort: 4240, ports: [3239, 3240], database: 'tokens' });
const { DAY, A, B, api, v1, upstreamIds, upstreamRecords, walkPortal, settings, makeToken, needPg, made, cookies } = portals;
let whole = '';

test('admins and editors make tokens, shown once; wrong fields are named; viewers may not; all of it audited', async () => {
  needPg();
  whole = (await makeToken('Whole licence')).token;
  expect(whole).toMatch(/^pvt_[A-Za-z0-9_-]{43}$/);
  const mine = await makeToken('Editor CMS', { scope: { content: ['picks'], sports: ['Football'], leagues: [] } }, 'editor');

  const listed = await api('admin', 'GET', '/api/tokens');
  expect(listed.body.data.map((t: { name: string }) => t.name).sort()).toEqual(['Editor CMS', 'Whole licence']);
  expect(JSON.stringify(listed.body)).not.toContain(whole.slice(10));
  expect(listed.body.data.find((t: { name: string }) => t.name === 'Whole licence')).toMatchObject({
    prefix: whole.slice(0, 10),
    state: 'active',
  });
  // An editor sees and manages only their own.
  expect((await api('editor', 'GET', '/api/tokens')).body.data.map((t: { id: string }) => t.id)).toEqual([mine.id]);
  expect((await api('editor', 'GET', `/api/tokens/${made['Whole licence']!.id}`)).status).toBe(404);
  expect((await api('viewer', 'POST', '/api/tokens', settings())).status).toBe(403);

  const wrong = await api('admin', 'POST', '/api/tokens', {
    name: '',
    scope: { content: ['odds'], sports: ['Curling'], leagues: [] },
    expiresAt: 'tomorrow',
    ratePerMinute: 0,
    dailyRecords: -1,
  });
  expect(wrong.status).toBe(400);
  expect(Object.keys(wrong.body.error.details).sort()).toEqual([
    'dailyRecords',
    'expiresAt',
    'name',
    'ratePerMinute',
    'scope.content',
    'scope.sports',
  ]);
  expect(wrong.body.error.message).toContain('scope.sports "Curling" is not in the licence');
  // Another site cannot make one in an admin's name.
  const forged = await fetch(`${A()}/api/tokens`, {
    method: 'POST',
    headers: { cookie: cookies.admin, origin: 'https://evil.example', 'Content-Type': 'application/json' },
    body: JSON.stringify(settings()),
  });
  expect(forged.status).toBe(403);

  const audit = await api('admin', 'GET', '/api/audit?action=token.create&format=json');
  expect(audit.status).toBe(200);
  expect(JSON.stringify(audit.body)).toContain('Whole licence');
  expect(JSON.stringify(audit.body)).toContain('Editor CMS');
});

test.describe('the API v1 contract, through the portal with a whole-licence token', () => {
  v1Contract({ describe: test.describe, it: test, beforeAll: test.beforeAll, expect }, () => ({
    baseUrl: `${A()}`,
    key: whole,
    describedBy: '/api/v1/openapi.json',
  }));
});

test('admins set the ceilings editors may give their own tokens; admins are not bound; each change audited', async () => {
  needPg();
  expect((await api('editor', 'PUT', '/api/tokens/ceilings', { ratePerMinute: 1, dailyRecords: 1 })).status).toBe(403);
  expect((await api('viewer', 'GET', '/api/tokens/ceilings')).status).toBe(403);
  const wrong = await api('admin', 'PUT', '/api/tokens/ceilings', { ratePerMinute: 0, dailyRecords: 'many', colour: 1 });
  expect(Object.keys(wrong.body.error.details).sort()).toEqual(['colour', 'dailyRecords', 'ratePerMinute']);
  expect((await api('admin', 'PUT', '/api/tokens/ceilings', { ratePerMinute: 100, dailyRecords: 5_000 })).body).toEqual({
    ratePerMinute: 100,
    dailyRecords: 5_000,
  });
  expect((await api('editor', 'GET', '/api/tokens/ceilings', undefined, B())).body).toEqual({ ratePerMinute: 100, dailyRecords: 5_000 });
  const over = await api('editor', 'POST', '/api/tokens', settings({ name: 'Too fast' }), B());
  expect(over.status).toBe(400);
  expect(over.body.error.details).toEqual({
    ratePerMinute: expect.stringContaining('at most 100 requests a minute'),
    dailyRecords: expect.stringContaining('at most 5000 records a day'),
  });
  expect((await api('editor', 'POST', '/api/tokens', settings({ name: 'Within', ratePerMinute: 100, dailyRecords: 5_000 }))).status).toBe(
    201,
  );
  expect((await api('admin', 'POST', '/api/tokens', settings({ name: 'Admin unbound' }))).status).toBe(201);
  const audit = JSON.stringify((await api('admin', 'GET', '/api/audit?format=json&action=token.ceilings')).body);
  expect(audit).toContain('"ratePerMinute":"100"');
  expect((await api('admin', 'PUT', '/api/tokens/ceilings', { ratePerMinute: 6_000, dailyRecords: 50_000_000 })).status).toBe(200);
});

test('a narrowed scope walks exactly the upstream’s own records for it; filters outside it are refused', async () => {
  needPg();
  const two = await makeToken('Two sports', { scope: { content: ['picks'], sports: ['Football', 'Tennis'], leagues: [] } });
  const walked = await walkPortal(A(), two.token);
  expect(walked.every((r) => r.sport === 'Football' || r.sport === 'Tennis')).toBe(true);
  const expected = [...(await upstreamIds({ sport: 'Football' })), ...(await upstreamIds({ sport: 'Tennis' }))];
  expect(walked.map((r) => r.id)).toEqual(expected);
  expect(new Set(walked.map((r) => r.sport))).toEqual(new Set(['Football', 'Tennis']));
  // The typed client generated from the OpenAPI document (clients/typescript) walks the same records.
  const viaClient: string[] = [];
  for await (const pick of walkPicks(createPicksClient({ baseUrl: A(), token: two.token }), { limit: 200 })) viaClient.push(pick.id!);
  expect(viaClient).toEqual(expected);

  const from = new Date(Date.now() - 3 * DAY).toISOString();
  const to = new Date(Date.now() + 3 * DAY).toISOString();
  const leagues = await makeToken('Two leagues this week', {
    scope: { content: ['picks'], sports: ['Football'], leagues: ['Premier League', 'Serie A'], from, to },
  });
  // Through the portal whose upstream ignores sport and league: the portal drops what is outside the scope.
  const narrow = await walkPortal(B(), leagues.token, {}, 7);
  expect(narrow.length).toBeGreaterThan(0);
  expect(narrow.every((r) => ['Premier League', 'Serie A'].includes(r.league) && r.eventDate >= from && r.eventDate < to)).toBe(true);
  const upstream = [
    ...(await upstreamRecords({ sport: 'Football', league: 'Premier League', from, to })),
    ...(await upstreamRecords({ sport: 'Football', league: 'Serie A', from, to })),
  ];
  expect(narrow.map((r) => r.id)).toEqual(upstream.map((r) => r.id));
  // Their text as the upstream sent it (the attribution's ©): records are passed on as bytes, never decoded and
  // re-encoded wrongly, also when some are dropped and the rest written again.
  const text = (r: Record<string, string>) => [r.id, r.attribution, r.homeTeam, r.awayTeam, r.league];
  expect(narrow.map(text)).toEqual(upstream.map(text));
  expect(narrow.every((r) => r.attribution?.includes('©'))).toBe(true);

  // Outside the scope: a league, a sport, a date range, and content it was not given.
  for (const [path, what] of [
    ['/picks?league=NBA', 'league'],
    ['/picks?sport=Basketball', 'sport'],
    [`/picks?from=${encodeURIComponent(new Date(Date.now() + 30 * DAY).toISOString())}`, 'date range'],
    ['/results', 'results'],
  ] as const) {
    const refused = await v1(A(), path, leagues.token);
    expect(refused.status, path).toBe(403);
    expect(refused.body.error.message).toContain(what);
  }
  // Why, in the consumer's terms: a slip gets the nearest name, a licensed sport outside the scope says so, a day alone the form.
  const slip = await v1(A(), '/picks?sport=Fotball', leagues.token);
  expect([slip.status, slip.body.error.code]).toEqual([403, 'OUT_OF_SCOPE']);
  expect(slip.body.error.message).toBe('The sport asked for is not one of the licence\'s sports (did you mean "Football"?).');
  expect((await v1(A(), '/picks?sport=Basketball', leagues.token)).body.error.message).toBe(
    'The sport "Basketball" is in the licence but outside this token\'s scope, which covers Football.',
  );
  const day = await v1(A(), '/picks?from=2026-11-01&status=setled', leagues.token);
  expect([day.status, day.body.error.code, day.body.error.requestId]).toEqual([400, 'INVALID_FILTERS', expect.stringMatching(/^req_/)]);
  expect(day.body.error.message).toBe(
    'One or more filters are invalid: status must be one of upcoming, live, settled, void (did you mean "settled"?); ' +
      'from must be a UTC timestamp such as 2026-11-01T00:00:00Z (for the whole day: 2026-11-01T00:00:00Z).',
  );
  // A record outside the scope does not exist for this token.
  const basketball = (await v1(A(), '/picks?sport=Basketball&limit=1', whole)).body.data[0];
  expect((await v1(A(), `/picks/${encodeURIComponent(basketball.id)}`, leagues.token)).status).toBe(404);
  // /me describes the token's scope, not the whole licence.
  const me = (await v1(A(), '/me', leagues.token)).body;
  expect(me.licence).toMatchObject({
    sports: ['Football'],
    leagues: ['Premier League', 'Serie A'],
    dateWindow: { from, to },
    content: ['picks'],
  });
  expect(me.token).toMatchObject({ id: leagues.id, name: 'Two leagues this week' });
});

test('a content is its fields: a picks-only token learns no outcome, a results-only token reads no reasoning or price', async () => {
  needPg();
  const both = await makeToken('Both contents');
  const picksOnly = await makeToken('Picks only', { scope: { content: ['picks'], sports: [], leagues: [] } });
  const resultsOnly = await makeToken('Results only', { scope: { content: ['results'], sports: [], leagues: [] } });
  const settled = await v1(A(), '/picks?status=settled&limit=20', both.token);
  expect(settled.body.data.length).toBeGreaterThan(0);
  expect(settled.body.data[0]).toHaveProperty('result');
  expect(settled.body.data[0]).toHaveProperty('reasoning');
  for (const origin of [A(), B()]) {
    const picks = await v1(origin, '/picks?status=settled&limit=20', picksOnly.token);
    expect(picks.body.data.map((r: { id: string }) => r.id)).toEqual(settled.body.data.map((r: { id: string }) => r.id));
    for (const record of picks.body.data) {
      expect(record).not.toHaveProperty('result');
      expect(record).not.toHaveProperty('settledAt');
      expect(record).toHaveProperty('reasoning');
    }
    const byOutcome = await v1(origin, '/picks?result=win&limit=5', picksOnly.token);
    expect(byOutcome.status).toBe(403);
    expect(byOutcome.body.error.code).toBe('OUT_OF_SCOPE');
    const one = await v1(origin, `/picks/${encodeURIComponent(settled.body.data[0].id)}`, picksOnly.token);
    expect(one.body.data).not.toHaveProperty('result');
    const results = await v1(origin, '/results?limit=20', resultsOnly.token);
    expect(results.body.data.length).toBeGreaterThan(0);
    for (const record of results.body.data) {
      for (const field of ['reasoning', 'odds', 'oddsFormat', 'bookmaker', 'probability', 'confidenceTier'])
        expect(record).not.toHaveProperty(field);
      expect(record).toHaveProperty('result');
    }
    expect((await v1(origin, '/picks?limit=1', resultsOnly.token)).status).toBe(403);
  }
});

test('cursors are sealed: altered, lent to another token or reused with other filters, they answer 400 INVALID_FILTERS', async () => {
  needPg();
  const two = made['Two sports']!;
  const first = await v1(A(), '/picks?limit=5', two.token);
  const cursor: string = first.body.page.nextCursor;
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  expect((await v1(A(), `/picks?limit=5&cursor=${cursor}`, two.token)).status).toBe(200);
  const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'AB' : 'AA'}`;
  for (const [path, token] of [
    [`/picks?limit=5&cursor=${tampered}`, two.token],
    [`/picks?limit=5&cursor=${cursor}`, whole],
    [`/picks?limit=5&sport=Tennis&cursor=${cursor}`, two.token],
  ] as const) {
    const refused = await v1(A(), path, token);
    expect(refused.status, path).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_FILTERS' });
  }
});

test('neither the partner key nor a token is in any answer or log line', async () => {
  portals.needPg();
  expectNothingSecret(portals);
});
