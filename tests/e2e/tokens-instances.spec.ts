import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, signIn, STAFF, test } from '../support/fixtures';
import { TokensPage } from '../support/pages/tokens-page';
import { expectNothingSecret, tokenPortals } from '../support/token-portals';
import { OverviewPage } from '../support/pages';

/**
 * API tokens across two portals on one PostgreSQL (tests/support/token-portals.ts): expiry, revocation and scope
 * changes reach the other instance within 10 s; a token acts for its owner; reading ahead; rate and quota hold
 * across instances; sessions and tokens stay on their own side; consumer webhooks; a token on /developers and on
 * /tokens; neither the partner key nor a token is ever in an answer or a log line.
 */

const portals = tokenPortals({ sandboxPort: 4244, ports: [3248, 3249], database: 'tokens_instances' });
const { A, B, api, v1, upstreamRequests, makeToken, needPg, users, made, answers, output, cookies } = portals;

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
      env: { ...process.env, ...portals.operatorEnv() },
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
  const bearer = { Authorization: `Bearer ${(await makeToken('A session is not a token')).token}` };
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
  await new OverviewPage(page, A()).visit();
  await expect(page.getByTestId('token-limits')).toContainText(/Newsletter job: 83 % of today’s quota used/, { timeout: 15_000 });

  // Revoked from its page: refused at once, marked revoked.
  await page.getByRole('link', { name: 'Newsletter job' }).click();
  await tokens.revoke();
  await expect(page.getByText('revoked', { exact: true }).first()).toBeVisible();
  expect((await v1(A(), '/picks?limit=1', token)).status).toBe(401);
});

test('neither the partner key nor a token is in any answer or log line', async () => {
  portals.needPg();
  expectNothingSecret(portals);
});
