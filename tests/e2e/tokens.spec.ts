import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { needPostgres, startPostgres, type TestPostgres } from '../support/postgres';
import { v1Contract } from '../support/v1-contract';
import { expect, signIn, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { type Instance } from '../support/instances';
import { startStaffPortal } from '../support/staff-portal';
import { TokensPage } from '../support/pages/tokens-page';
import { startSandboxProcess } from '../support/sandbox-process';
import { sessionCookie } from '../support/session';
import { expectDescribed } from '../support/described';
import { createPicksClient, walkPicks } from '../../clients/typescript/src';

/**
 * API tokens end to end: two portals (`npm start`) on one PostgreSQL in front of a sandbox of this spec's own.
 * Admins and editors make tokens; the project's API v1 contract suite runs against the portal's /api/v1 with a
 * whole-licence token; narrowed scopes walk exactly the upstream's own records for that scope, also through the
 * second portal, whose upstream ignores the sport and league filters; cursors cannot
 * be altered or lent; expiry, revocation and scope changes reach the other instance within 10 s; rate and quota
 * hold across instances; sessions and tokens stay on their own side; neither the partner key nor a token is
 * ever in an answer or a log line.
 */

const SANDBOX_PORT = 4240;
const SANDBOX = `http://127.0.0.1:${SANDBOX_PORT}`;
const PORTS = [3239, 3240] as const;
const KEY = E2E.sandboxKey;
const DAY = 86_400_000;

let pgServer: TestPostgres | null = null;
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let filterless: Server | undefined;
const instances: Instance[] = [];
const output: string[] = [];
/** Every answer of the portals' /api/v1 in this spec: none may carry the key or a token. */
const answers: string[] = [];
const cookies: Record<'admin' | 'editor' | 'viewer', string> = { admin: '', editor: '', viewer: '' };
const made: Record<string, { id: string; token: string }> = {};
let whole = '';
/** What an operator's `npm run users` is given: the portals' own settings (their environment file). */
let operatorEnv: Record<string, string> = {};

const A = () => instances[0]!.origin;
const B = () => instances[1]!.origin;

/** The session API as a signed-in person (a state change names the portal as its Origin). */
async function api(role: keyof typeof cookies, method: string, path: string, body?: unknown, origin = A()) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { cookie: cookies[role], origin, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  await expectDescribed(origin, cookies[role], method, path, res, text);
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The portal's /api/v1 with a token. */
async function v1(origin: string, path: string, token: string) {
  const res = await fetch(`${origin}/api/v1${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await res.text();
  await expectDescribed(origin, undefined, 'GET', `/api/v1${path}`, res, text);
  answers.push(`${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`);
  expect(res.headers.get('cache-control'), path).toBe('private, no-store');
  return { status: res.status, headers: res.headers, body: JSON.parse(text) };
}

/** The sandbox directly, with the partner key: the upstream's own answer for a filter. */
async function upstreamIds(filters: Record<string, string>): Promise<string[]> {
  return (await upstreamRecords(filters)).map((r) => r.id!);
}

/** Every record the sandbox itself has for these filters, as it sends them. */
async function upstreamRecords(filters: Record<string, string>): Promise<Record<string, string>[]> {
  const records: Record<string, string>[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
    const body = (await (await fetch(`${SANDBOX}/api/v1/picks?${q}`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
      data: Record<string, string>[];
      page: { nextCursor: string | null; hasMore: boolean };
    };
    records.push(...body.data);
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return records;
}

/** The sandbox's count of requests, a second after the last one (what was read ahead has arrived). */
async function upstreamRequests(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return ((await (await fetch(`${SANDBOX}/__sandbox/stats`)).json()) as { requests: number }).requests;
}

/** Every record of a walk through the portal with a token. */
async function walkPortal(origin: string, token: string, filters: Record<string, string> = {}, limit = 50) {
  const records: ({ id: string; sport: string; league: string; eventDate: string } & Record<string, string>)[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ ...filters, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page = await v1(origin, `/picks?${q}`, token);
    expect(page.status).toBe(200);
    records.push(...page.body.data);
    cursor = page.body.page.hasMore ? page.body.page.nextCursor : null;
  } while (cursor);
  return records;
}

const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();
const settings = (over: Record<string, unknown> = {}) => ({
  name: 'Warehouse loader',
  scope: { content: ['picks', 'results'], sports: [], leagues: [] },
  expiresAt: inDays(30),
  ratePerMinute: 6_000,
  dailyRecords: 10_000_000,
  ...over,
});
async function makeToken(name: string, over: Record<string, unknown> = {}, role: 'admin' | 'editor' = 'admin') {
  const res = await api(role, 'POST', '/api/tokens', settings({ name, ...over }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  made[name] = { id: res.body.id, token: res.body.token };
  return made[name]!;
}

const needPg = () => needPostgres(pgServer, 'the API tokens test', (why) => test.skip(true, why));

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  pgServer = await startPostgres();
  if (!pgServer) return;
  sandbox = await startSandboxProcess(SANDBOX_PORT, { SANDBOX_PICKS: '3000', SANDBOX_RATE_LIMIT: '0' });
  const url = await pgServer.createDatabase('tokens');
  // The second portal's upstream ignores the sport and league filters (as a faulty upstream might): what it
  // answers through /api/v1 must still be only what each token's scope holds.
  filterless = createServer((req, res) => {
    const url = new URL(req.url ?? '/', SANDBOX);
    url.searchParams.delete('sport');
    url.searchParams.delete('league');
    void fetch(url, { headers: { Authorization: String(req.headers.authorization) } }).then(async (answer) => {
      res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => filterless!.listen(0, '127.0.0.1', resolve));
  const upstreams = [SANDBOX, `http://127.0.0.1:${(filterless!.address() as AddressInfo).port}`];
  operatorEnv = { ...upstreamEnv(SANDBOX, KEY), DATABASE_URL: url, AUTH_SECRET: 'tokens-spec-secret-0123456789-abcdef' };
  for (const [k, port] of PORTS.entries())
    instances.push(
      await startStaffPortal(port, {
        roles: ['admin', 'editor', 'viewer'],
        env: {
          ...upstreamEnv(upstreams[k]!, KEY),
          PORTAL_IMAGE_ORIGINS: SANDBOX,
          DATABASE_URL: url,
          AUTH_SECRET: 'tokens-spec-secret-0123456789-abcdef',
          CHANGES_POLL_SECONDS: '0',
          DELIVERY_SECRET_KEY: 'tokens-spec-delivery-secret-0123456789',
          DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
        },
        output: output,
      }),
    );
  for (const role of ['admin', 'editor', 'viewer'] as const) cookies[role] = await sessionCookie(A(), role);
});

test.afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop()));
  await sandbox?.stop();
  filterless?.close();
  pgServer?.destroy();
});

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

test('an expired token is refused; a revocation and a change of scope reach the other instance within 10 s', async () => {
  needPg();
  const brief = await makeToken('Brief', { expiresAt: new Date(Date.now() + 4_000).toISOString() });
  expect((await v1(B(), '/picks?limit=1', brief.token)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 4_500));
  const expired = await v1(B(), '/picks?limit=1', brief.token);
  expect(expired.status).toBe(401);
  expect(expired.body.error.message).toMatch(/expired/);

  const loader = await makeToken('Loader');
  expect((await v1(B(), '/picks?limit=1', loader.token)).status).toBe(200); // B now knows it
  expect(
    (await api('admin', 'PATCH', `/api/tokens/${loader.id}`, { scope: { content: ['picks'], sports: ['Tennis'], leagues: [] } })).status,
  ).toBe(200);
  const changedAt = Date.now();
  await expect
    .poll(async () => (await v1(B(), '/picks?limit=20', loader.token)).body.data.every((r: { sport: string }) => r.sport === 'Tennis'), {
      timeout: 10_000,
    })
    .toBe(true);
  expect(Date.now() - changedAt).toBeLessThanOrEqual(10_000);

  expect((await api('admin', 'DELETE', `/api/tokens/${loader.id}`)).status).toBe(204);
  const revokedAt = Date.now();
  await expect.poll(async () => (await v1(B(), '/picks?limit=1', loader.token)).status, { timeout: 10_000 }).toBe(401);
  expect(Date.now() - revokedAt).toBeLessThanOrEqual(10_000);
  expect((await v1(A(), '/picks?limit=1', loader.token)).status).toBe(401); // at once where it was revoked
  expect((await api('admin', 'GET', `/api/tokens/${loader.id}`)).body).toMatchObject({
    state: 'revoked',
    revokedBy: 'admin@staff.picks.test',
  });
  const audit = JSON.stringify((await api('admin', 'GET', '/api/audit?format=json')).body);
  expect(audit).toContain('token.change');
  expect(audit).toContain('token.revoke');
});

const users = (...args: string[]) =>
  promisify(execFile)('npm', ['run', '-s', 'users', '--', ...args], { env: { ...process.env, ...operatorEnv } }).then((r) => r.stdout);

test('a token acts for its owner: disabled, demoted or removed, it stops on the other instance within 10 s, says why, and an admin gives it to someone else', async () => {
  needPg();
  test.setTimeout(120_000);
  const changes = [
    ['disabled@staff.picks.test', ['disable'], /suspended: owner disabled/, 'owner disabled'],
    [
      'demoted@staff.picks.test',
      ['role', '--role', 'viewer'],
      /suspended: owner is a viewer, who may not use tokens/,
      'owner is a viewer, who may not use tokens',
    ],
    ['removed@staff.picks.test', ['remove'], /suspended: owner removed/, 'owner removed'],
  ] as const;
  const tokens: { id: string; token: string }[] = [];
  for (const [owner] of changes) {
    await promisify(execFile)('sh', ['-c', `echo 'a long leaver password' | npm run -s users -- add ${owner} --role editor`], {
      env: { ...process.env, ...operatorEnv },
    });
    const made = await makeToken(`Kept running for ${owner}`);
    expect((await api('admin', 'PATCH', `/api/tokens/${made.id}`, { owner })).body).toMatchObject({ owner, state: 'active' });
    expect((await v1(B(), '/picks?limit=1', made.token)).status).toBe(200); // B knows the token and its owner now
    tokens.push(made);
  }

  // Changed by an operator (no instance is told): B stops each token within 10 s, saying why.
  for (const [owner, change] of changes) await users(change[0], owner, ...change.slice(1));
  const changedAt = Date.now();
  await expect
    .poll(async () => Promise.all(tokens.map(async (t) => (await v1(B(), '/picks?limit=1', t.token)).status)), {
      timeout: 10_000,
      intervals: [250],
    })
    .toEqual([401, 401, 401]);
  expect(Date.now() - changedAt).toBeLessThanOrEqual(10_000);
  for (const [k, [, , message, reason]] of changes.entries()) {
    expect((await v1(B(), '/picks?limit=1', tokens[k]!.token)).body.error.message).toMatch(message);
    expect((await api('admin', 'GET', `/api/tokens/${tokens[k]!.id}`, undefined, B())).body).toMatchObject({
      state: 'suspended',
      suspended: reason,
    });
  }

  // The owner has left: an admin gives the token to someone else, and the partner's system runs on.
  const moved = await api('admin', 'PATCH', `/api/tokens/${tokens[2]!.id}`, { owner: 'editor@staff.picks.test' });
  expect(moved.body).toMatchObject({ owner: 'editor@staff.picks.test', state: 'active', suspended: null });
  expect((await v1(A(), '/picks?limit=1', tokens[2]!.token)).status).toBe(200);
  const trail = (await api('admin', 'GET', '/api/audit?format=json')).body.entries as {
    action: string;
    target: string;
    filters: { reason?: string };
  }[];
  for (const [k, [, , , reason]] of changes.entries())
    expect(
      trail.filter((e) => e.action === 'token.suspend' && e.target.endsWith(`(${tokens[k]!.id})`)).map((e) => e.filters.reason),
    ).toEqual([reason]);
  expect(trail.filter((e) => e.action === 'token.reassign' && e.target.endsWith(`(${tokens[2]!.id})`))).toHaveLength(2);
});

test('a cursor asked again with other page sizes is read ahead once; reading ahead counts against the rate and never makes a request 429', async () => {
  needPg();
  const walker = await makeToken('Walker');
  const cursor = (await v1(A(), '/picks?limit=5', walker.token)).body.page.nextCursor as string;
  const before = await upstreamRequests();
  for (let limit = 1; limit <= 10; limit += 1)
    expect((await v1(A(), `/picks?limit=${limit}&cursor=${encodeURIComponent(cursor)}`, walker.token)).status).toBe(200);
  expect((await upstreamRequests()) - before).toBeLessThanOrEqual(12); // ten pages, and two read ahead once (it was 30)

  // Three requests a minute: the second walks on without reading ahead (no room after it), and the third is not refused.
  const slow = await makeToken('Slow walker', { ratePerMinute: 3 });
  const first = await v1(A(), '/picks?limit=5', slow.token);
  const start = await upstreamRequests();
  const second = await v1(A(), `/picks?limit=5&cursor=${encodeURIComponent(first.body.page.nextCursor)}`, slow.token);
  expect((await upstreamRequests()) - start).toBe(1);
  expect((await v1(A(), `/picks?limit=5&cursor=${encodeURIComponent(second.body.page.nextCursor)}`, slow.token)).status).toBe(200);
  expect((await v1(A(), `/picks?limit=5&cursor=${encodeURIComponent(second.body.page.nextCursor)}`, slow.token)).status).toBe(429);
});

test('a walk over the same pages again (tomorrow’s load, a rerun) is read ahead again, not only the first time', async () => {
  needPg();
  const loader = await makeToken('Nightly loader');
  for (const run of [1, 2]) {
    const first = await v1(A(), '/picks?limit=5', loader.token);
    const before = await upstreamRequests();
    const second = await v1(A(), `/picks?limit=5&cursor=${encodeURIComponent(first.body.page.nextCursor)}`, loader.token);
    // Its own page, or the one after it, asked for before the loader asks: the walk is read ahead.
    expect((await upstreamRequests()) - before, `run ${run}`).toBeGreaterThanOrEqual(2);
    const third = await v1(A(), `/picks?limit=5&cursor=${encodeURIComponent(second.body.page.nextCursor)}`, loader.token);
    expect(third.status).toBe(200);
  }
});

test('the rate limit and the daily quota hold across two instances, with 429 and Retry-After', async () => {
  needPg();
  const slow = await makeToken('Ten a minute', { ratePerMinute: 10 });
  const statuses: number[] = [];
  let refusal: Awaited<ReturnType<typeof v1>> | null = null;
  for (let i = 0; i < 14; i += 1) {
    const res = await v1(i % 2 ? B() : A(), '/picks?limit=1', slow.token);
    statuses.push(res.status);
    if (res.status === 429) refusal = res;
  }
  expect(statuses.filter((s) => s === 200)).toHaveLength(10);
  expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
  expect(refusal!.body.error).toMatchObject({ code: 'RATE_LIMITED' });
  expect(Number(refusal!.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(Number(refusal!.headers.get('retry-after'))).toBeLessThanOrEqual(60);

  const quota = await makeToken('Quota of 250', { dailyRecords: 250 });
  const counts: number[] = [];
  let cursor = '';
  for (const origin of [A(), B(), A()]) {
    const page = await v1(origin, `/picks?limit=100${cursor ? `&cursor=${cursor}` : ''}`, quota.token);
    expect(page.status).toBe(200);
    counts.push(page.body.data.length);
    cursor = page.body.page.nextCursor;
  }
  expect(counts).toEqual([100, 100, 50]); // the last page is cut to what is left of the quota
  const over = await v1(B(), `/picks?limit=100&cursor=${cursor}`, quota.token);
  expect(over.status).toBe(429);
  expect(over.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED' });
  const retry = Number(over.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(86_400);

  // Use per day, summed from both instances (each flushes within a few seconds).
  await expect
    .poll(async () => (await api('admin', 'GET', `/api/tokens/${quota.id}/usage`)).body.days[0]?.records, { timeout: 15_000 })
    .toBe(250);
  const day = (await api('admin', 'GET', `/api/tokens/${quota.id}/usage`)).body.days[0];
  expect(day).toMatchObject({ requests: 4, records: 250, throttled: 1, clientErrors: 0, lastAddress: '127.0.0.1' });
  expect(day.bytes).toBeGreaterThan(0);
});

test('a session never opens /api/v1 and a token never opens a page or the portal’s own API', async () => {
  needPg();
  const withCookie = await fetch(`${A()}/api/v1/picks?limit=1`, { headers: { cookie: cookies.admin } });
  expect(withCookie.status).toBe(401);
  expect(((await withCookie.json()) as { error: { message: string } }).error.message).toMatch(/session is not accepted/);
  const bearer = { Authorization: `Bearer ${whole}` };
  const page = await fetch(`${A()}/picks`, { headers: bearer, redirect: 'manual' });
  expect(page.status).toBe(307);
  expect(page.headers.get('location')).toMatch(/^\/login/);
  for (const path of [
    '/api/records/count?kind=picks',
    '/api/tokens',
    '/api/export/picks?format=csv',
    '/api/history?asOf=2026-11-20T00:00:00Z',
  ])
    expect((await fetch(`${A()}${path}`, { headers: bearer })).status, path).toBe(401);
});

test('consumer webhooks: the token’s owner or an admin, same-site, every wrong field named, the URL masked and the secret shown once', async () => {
  needPg();
  const changes = { scope: { content: ['picks', 'changes'], sports: [], leagues: [] } };
  const pushed = await makeToken('Editor push', changes, 'editor');
  const plain = await makeToken('Editor plain', {}, 'editor');
  const admins = await makeToken('Admin push', changes);
  const hooks = (id: string) => `/api/tokens/${id}/webhooks`;
  const wrong = await api('editor', 'POST', hooks(pushed.id), { url: 'ftp://x', kinds: ['pick.nope'], secret: 'short' });
  expect(wrong.status).toBe(400);
  expect(Object.keys(wrong.body.error.details).sort()).toEqual(['kinds', 'secret', 'url']);
  expect((await api('editor', 'POST', hooks(plain.id), { url: 'http://127.0.0.1:9/x' })).body.error.details).toEqual({
    token: 'cannot send now: it does not read changes (events)',
  });
  // Another person's token (not an admin): no such token; a viewer may not; another site may not.
  expect((await api('editor', 'GET', hooks(admins.id))).status).toBe(404);
  expect((await api('viewer', 'GET', hooks(pushed.id))).status).toBe(403);
  const forged = await fetch(`${A()}${hooks(pushed.id)}`, {
    method: 'POST',
    headers: { cookie: cookies.editor, origin: 'https://evil.example', 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/x' }),
  });
  expect(forged.status).toBe(403);

  const made = await api('editor', 'POST', hooks(pushed.id), { url: 'http://127.0.0.1:9/secret-path?k=v', kinds: ['pick.settled'] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body).toMatchObject({ url: 'http://127.0.0.1:9/…', kinds: ['pick.settled'], state: 'delivering' });
  expect(made.body.secret).toMatch(/^whsec_/);
  const listed = await api('admin', 'GET', hooks(pushed.id));
  expect(listed.body.data.map((h: { id: string }) => h.id)).toEqual([made.body.id]);
  expect(JSON.stringify(listed.body)).not.toMatch(/secret-path|whsec_/);
  const one = `${hooks(pushed.id)}/${made.body.id}`;
  expect((await api('editor', 'PATCH', one, { url: 'http://127.0.0.1:9/elsewhere' })).body.error.details).toEqual({
    secret: 'is bound to the URL it was saved with: enter it again for the new URL, or give a new one',
  });
  const resend = await api('editor', 'POST', `${one}/resend`, { event: 0, after: 0, extra: true });
  expect(Object.keys(resend.body.error.details).sort()).toEqual(['body', 'extra']);
  expect((await api('editor', 'POST', `${one}/resend`, { after: 10 ** 9 })).body.error.details.after).toMatch(
    /^is after the last event this webhook was given/,
  );
  expect((await api('editor', 'PATCH', one, { enabled: false })).body).toMatchObject({
    state: 'disabled',
    why: `disabled by ${STAFF.editor.email}`,
  });
  expect((await api('editor', 'DELETE', one)).status).toBe(204);
  expect((await api('editor', 'GET', hooks(pushed.id))).body.data).toEqual([]);
  const audit = JSON.stringify((await api('admin', 'GET', '/api/audit?action=token.webhook.add&format=json')).body);
  expect(audit).toContain(made.body.id);
  expect(audit).not.toContain('secret-path');
  expect(output.join('\n')).not.toContain(made.body.secret);
});

test('a token pasted on /developers answers from the page and, like every other, is in no log line', async ({ page }) => {
  needPg();
  const tried = await makeToken('Tried on /developers', { scope: { content: ['picks'], sports: ['Football'], leagues: [] } }, 'editor');
  await signIn(page, 'editor', '/developers', A());
  await page.getByLabel('Try requests with', { exact: true }).selectOption('');
  await page.getByLabel('The token', { exact: true }).fill(tried.token);
  await page.getByRole('button', { name: 'Use for requests' }).click();
  const reference = page.getByTestId('api-reference');
  await reference.getByText('/api/v1/picks', { exact: true }).first().click();
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/picks');
  await reference.getByRole('button', { name: 'TRY', exact: true }).first().click();
  const response = await answered;
  const text = await response.text();
  answers.push(text);
  expect(response.status()).toBe(200);
  expect(new Set((JSON.parse(text) as { data: { sport: string }[] }).data.map((p) => p.sport))).toEqual(new Set(['Football']));
});

test('neither the partner key nor a token is in any answer or log line', async () => {
  needPg();
  expect(answers.length).toBeGreaterThan(50);
  const tokens = Object.values(made).map((t) => t.token);
  for (const text of [answers.join('\n'), output.join('')]) {
    expect(text).not.toContain(KEY);
    for (const token of tokens) expect(text).not.toContain(token.slice(4));
  }
});

test('on /tokens an admin makes a token, sees it once, watches its use and is told on the overview when it nears its quota', async ({
  page,
}) => {
  needPg();
  await signIn(page, 'admin', '/tokens', A());
  const tokens = new TokensPage(page);
  await tokens.expectOpen();
  // Every wrong field named at once: no content ticked, no name.
  await tokens.fill({ untick: ['picks', 'results'], dailyRecords: '0', name: ' ' });
  await tokens.make();
  await expect(tokens.problem).toContainText('3 fields need a change');
  // The summary names the fields in the form's words, each a link to its control; each problem is said once, beside its field.
  await expect(tokens.problem.getByRole('link')).toHaveText(['Name', 'Content', 'Records a day'], { useInnerText: true });
  await expect(tokens.problem.getByRole('link', { name: 'Records a day' })).toHaveAttribute('href', '#tok-daily');
  await expect(tokens.form.getByText('is required')).toHaveCount(1);
  await expect(tokens.problem).not.toContainText('is required');

  await tokens.fill({ name: 'Newsletter job', tick: ['picks', 'Tennis'], dailyRecords: '12' });
  await tokens.make();
  await expect(tokens.shown).toHaveText(/^pvt_[A-Za-z0-9_-]{43}$/);
  const token = (await tokens.shown.textContent())!;
  made['Newsletter job'] = { id: '', token };
  await expect(tokens.row('Newsletter job')).toContainText('picks; Tennis');
  await expect(tokens.row('Newsletter job')).toContainText('60/min, 12/day');
  // The form starts clean for the next token: nothing of this one's scope, name or limits carried over.
  await expect(tokens.form.getByLabel('Name (the system that uses it)')).toHaveValue('');
  await expect(tokens.form.getByLabel('Tennis', { exact: true })).not.toBeChecked();
  await expect(tokens.form.getByLabel('results', { exact: true })).toBeChecked();
  await expect(tokens.form.getByLabel('Records a day')).toHaveValue('100000');

  // Read 10 of its 12 records: the overview says it is near its quota; its page shows the day's use.
  const read = await v1(A(), '/picks?limit=10', token); // the page's own instance counts it at once
  expect(read.body.data.map((r: { sport: string }) => r.sport)).toEqual(Array(10).fill('Tennis'));
  await page.reload();
  await expect(tokens.shown).toHaveCount(0); // shown once
  expect(await page.content()).not.toContain(token.slice(4));
  await tokens.openToken('Newsletter job');
  await expect(tokens.usageRows()).toHaveCount(1, { timeout: 15_000 });
  await expect(tokens.usageRows()).toContainText(['10']);
  await page.goto(`${A()}/`);
  await expect(page.getByTestId('token-limits')).toContainText(/Newsletter job: 83 % of today’s quota used/, { timeout: 15_000 });

  // Revoked from its page: refused at once, marked revoked.
  await page.getByRole('link', { name: 'Newsletter job' }).click();
  await tokens.revoke();
  await expect(page.getByText('revoked', { exact: true }).first()).toBeVisible();
  expect((await v1(A(), '/picks?limit=1', token)).status).toBe(401);
});
