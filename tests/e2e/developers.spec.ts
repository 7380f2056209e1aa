import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, signInKept, snapshot, test } from '../support/fixtures';
import { DevelopersPage, EventCataloguePage, TokenPage } from '../support/pages';

/**
 * /developers: API v1's reference rendered from the document the portal serves, in the portal's frame and theme,
 * at 1440 and 390 px in light and dark, axe-clean; a request tried from the page with one of the editor's own tokens
 * returns that token's records; the token is in no storage, cookie or URL afterwards, and never sent with a cookie.
 */

test.describe.configure({ mode: 'parallel' });

async function makeToken(page: Page, sports: string[]) {
  const origin = new URL(page.url()).origin;
  const made = await page.request.post('/api/tokens', {
    headers: { origin },
    data: {
      name: `Reference ${sports.join(' ')} ${Date.now()}`,
      scope: { content: ['picks'], sports, leagues: [] },
      expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      ratePerMinute: 600,
      dailyRecords: 100_000,
    },
  });
  expect(made.status()).toBe(201);
  return (await made.json()) as { id: string; name: string; token: string; prefix: string };
}

async function audit(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(
    results.violations.map((v) => `${what}: ${v.id}: ${v.help} (${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target.join(' ')})`),
  ).toEqual([]);
}

const reference = (page: Page) => page.getByTestId('api-reference');

test('the reference at 1440 and 390 px, light and dark: whole, axe-clean, no sideways scroll', async ({ page }) => {
  test.setTimeout(120_000);
  await signInKept(page, 'editor', '/developers');
  for (const width of [1440, 390])
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 });
      await page.emulateMedia({ colorScheme: scheme });
      await new DevelopersPage(page).visit();
      await expect(page.getByRole('heading', { name: 'API reference', level: 1 })).toBeVisible();
      // Every endpoint of the document is there, under its path.
      for (const path of ['/api/v1/picks', '/api/v1/results', '/api/v1/picks/{id}', '/api/v1/me', '/api/v1/health', '/api/v1/events'])
        await expect(reference(page).getByText(path, { exact: true }).first()).toBeVisible({ timeout: 30_000 });
      const background = await reference(page)
        .locator('rapi-doc')
        .evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(background, `${width} ${scheme}`).toBe(scheme === 'dark' ? 'rgb(15, 23, 42)' : 'rgb(255, 255, 255)');
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      await audit(page, `${width} ${scheme}`);
      await snapshot(page, `developers-${width}-${scheme}`);
    }
});

/** Opens GET /api/v1/picks in the reference, presses Try, and returns what was sent and what came back. */
async function tryPicks(page: Page) {
  const doc = reference(page);
  await doc.getByText('/api/v1/picks', { exact: true }).first().click();
  const asked = (url: string) => /^\/api\/(v1\/picks|developers\/try\/)/.test(new URL(url).pathname);
  const sent = page.waitForRequest((r) => asked(r.url()));
  const answered = page.waitForResponse((r) => asked(r.url()));
  await doc.getByRole('button', { name: 'TRY', exact: true }).first().click();
  const response = await answered;
  const body = (await response.json()) as { data: { id: string; sport: string }[] };
  // The answer is shown in the reference.
  await expect(doc.getByText(body.data[0]!.id).first()).toBeVisible();
  return { request: await sent, response, body };
}

test('“Try” with one’s own token, chosen: API v1 answers as that token through the portal, no secret on the page', async ({ page }) => {
  test.setTimeout(90_000);
  await signInKept(page, 'editor', '/developers');
  const tennis = await makeToken(page, ['Tennis']);
  await new DevelopersPage(page).visit();
  await page.getByLabel('Try requests with', { exact: true }).selectOption(tennis.id);
  await expect(page.getByTestId('try-with')).toContainText(`as your token “${tennis.name}” (may read picks; Tennis)`);
  await expect(page.getByLabel('The token', { exact: true })).toHaveCount(0);
  const { request, response, body } = await tryPicks(page);
  const url = new URL(request.url());
  expect(url.pathname).toBe(`/api/developers/try/${tennis.id}`);
  expect(url.searchParams.get('url')).toBe('/api/v1/picks');
  const headers = await request.allHeaders();
  expect(headers).not.toHaveProperty('authorization');
  expect(headers['x-portal-try']).toBe('1');
  expect(response.status()).toBe(200);
  expect(body.data.length).toBeGreaterThan(0);
  expect(new Set(body.data.map((p) => p.sport))).toEqual(new Set(['Tennis']));
  // Counted to the token's use like any of its requests.
  await expect
    .poll(
      async () =>
        ((await (await page.request.get(`/api/tokens/${tennis.id}`)).json()) as { today: { requests: number } | null }).today?.requests ??
        0,
    )
    .toBeGreaterThan(0);
  expect(await page.content()).not.toContain(tennis.token.slice(10));
});

test('“Try” with a pasted token sends it to /api/v1 alone, without the cookie; it is kept nowhere', async ({ page, context }) => {
  test.setTimeout(90_000);
  await signInKept(page, 'editor', '/developers');
  const tennis = await makeToken(page, ['Tennis']);
  await new DevelopersPage(page).visit();
  await page.getByLabel('Try requests with', { exact: true }).selectOption('');
  await page.getByLabel('The token', { exact: true }).fill('pvt_short');
  await page.getByRole('button', { name: 'Use for requests' }).click();
  await expect(page.getByText('The token is pvt_ followed by 43 letters')).toBeVisible();
  await page.getByLabel('The token', { exact: true }).fill(tennis.token);
  await page.getByRole('button', { name: 'Use for requests' }).click();
  await expect(page.getByTestId('try-with')).toContainText('sends the token you pasted');
  await expect(page.getByLabel('The token', { exact: true })).toHaveValue('');
  const { request, response, body } = await tryPicks(page);
  expect(new URL(request.url()).pathname).toBe('/api/v1/picks');
  expect(request.headers()['authorization']).toBe(`Bearer ${tennis.token}`);
  expect(await request.allHeaders()).not.toHaveProperty('cookie');
  expect(response.status()).toBe(200);
  expect(new Set(body.data.map((p) => p.sport))).toEqual(new Set(['Tennis']));
  // Nowhere kept: not in either storage, a cookie or the address.
  const kept = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
  expect(kept).not.toContain(tennis.token);
  expect(JSON.stringify(await context.cookies())).not.toContain(tennis.token);
  await page.getByRole('button', { name: 'Forget it' }).click();
  await expect(page.getByTestId('try-with')).toContainText('Paste a token');
});

test('the Try route acts only as the signed-in person’s own live token, only for the page, only on API v1', async ({ page, browser }) => {
  test.setTimeout(60_000);
  await signInKept(page, 'editor', '/developers');
  const mine = await makeToken(page, ['Tennis']);
  const admin = await browser.newPage();
  await signInKept(admin, 'admin', '/developers');
  const theirs = await makeToken(admin, ['Football']);
  const tryAs = (p: Page, id: string, url: string, headers: Record<string, string> = { 'x-portal-try': '1' }) =>
    p.request.get(`/api/developers/try/${id}?url=${encodeURIComponent(url)}`, { headers });
  const error = async (res: Awaited<ReturnType<typeof tryAs>>) => ({
    status: res.status(),
    ...((await res.json()) as { error: object }).error,
  });

  expect((await tryAs(page, mine.id, '/api/v1/me')).status()).toBe(200);
  // Another person's token, either way round (admins included: it is not theirs to act as).
  expect(await error(await tryAs(page, theirs.id, '/api/v1/me'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  expect(await error(await tryAs(admin, mine.id, '/api/v1/me'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  // Not from the page (a link or a form elsewhere cannot set the header); not from another site.
  expect(await error(await tryAs(page, mine.id, '/api/v1/me', {}))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  expect((await tryAs(page, mine.id, '/api/v1/me', { 'x-portal-try': '1', 'sec-fetch-site': 'cross-site' })).status()).toBe(403);
  // Only API v1's endpoints.
  for (const url of ['/api/tokens', '/api/v1/../tokens', 'http://127.0.0.1:9/api/v1/me', '/api/v1/nothing'])
    expect(await error(await tryAs(page, mine.id, url)), url).toMatchObject({
      status: 400,
      code: 'INVALID_TRY',
      details: { url: expect.stringContaining('API v1 endpoint') },
    });
  // A revoked token stops here as it does in Authorization.
  const origin = new URL(page.url()).origin;
  expect((await page.request.delete(`/api/tokens/${mine.id}`, { headers: { origin } })).status()).toBe(204);
  expect(await error(await tryAs(page, mine.id, '/api/v1/me'))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  await admin.close();
});

test('admins also get the portal’s own API; a role without tokens is refused the page', async ({ page, browser }) => {
  test.setTimeout(60_000);
  await signInKept(page, 'admin', '/developers');
  await page.getByLabel('Reference').selectOption('portal');
  await expect(reference(page).getByText('/api/deliveries', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('try-with')).toContainText('as you, signed in');
  await audit(page, 'portal API');

  const viewer = await browser.newPage();
  await signInKept(viewer, 'viewer');
  const refused = await new DevelopersPage(viewer).visit();
  expect(refused!.status()).toBe(403);
  await viewer.close();
});

test('an assistant’s client reaches the MCP server through the portal’s own server, with a token alone', async ({ page, playwright }) => {
  await signInKept(page, 'editor', '/developers');
  const tennis = await makeToken(page, ['Tennis']);
  // A partner's machine: no cookie, no Origin (bearer-only, as API v1: lib/http/request-policy.ts).
  const client = await playwright.request.newContext({ baseURL: new URL(page.url()).origin });
  const rpc = (body: object, token = tennis.token) =>
    client.post('/api/mcp', {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json, text/event-stream' },
      data: { jsonrpc: '2.0', ...body },
    });
  const init = await rpc({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
  });
  expect(init.status()).toBe(200);
  expect((await init.json()).result.serverInfo.name).toBe('picks-partner-portal');
  const called = await rpc({ id: 2, method: 'tools/call', params: { name: 'list_picks', arguments: { limit: 3 } } });
  const data = (await called.json()).result.structuredContent.data as { sport: string }[];
  expect(data).toHaveLength(3);
  expect(new Set(data.map((p) => p.sport))).toEqual(new Set(['Tennis']));
  expect((await rpc({ id: 3, method: 'tools/list' }, `pvt_${'x'.repeat(43)}`)).status()).toBe(401);
  await client.dispose();
});

test('the event catalogue: each message with an example and its schema, the checks in three languages, axe-clean at 390 px', async ({
  page,
}) => {
  await signInKept(page, 'editor', '/developers');
  await page.getByRole('link', { name: 'event catalogue' }).click();
  const catalogue = new EventCataloguePage(page);
  await expect(page.getByRole('heading', { name: 'Event catalogue', level: 1 })).toBeVisible();
  await expect(catalogue.eventTypes).toHaveCount(7);
  // The example is the document's own: what /api/v1/openapi.json states for that webhook.
  const served = (await (await page.request.get('/api/v1/openapi.json')).json()) as {
    webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { example: unknown } } } } }>;
  };
  expect(Object.keys(served.webhooks)).toEqual([
    'pick.published',
    'pick.changed',
    'pick.settled',
    'pick.withdrawn',
    'pick.restored',
    'gap',
    'webhook.test',
  ]);
  for (const type of ['pick.settled', 'gap', 'webhook.test'])
    expect(JSON.parse((await catalogue.example(type).textContent())!)).toEqual(
      served.webhooks[type]!.post.requestBody.content['application/json'].example,
    );
  await page.getByText('Its schema (JSON Schema)').first().click();
  await expect(page.getByRole('region', { name: 'pick.published: its schema' })).toContainText('"required"');
  for (const language of ['Node.js', 'Python', 'Shell (OpenSSL)'])
    await expect(page.getByRole('region', { name: `Check a webhook’s signature: ${language}` })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Check a saved stream: Node.js (the verifier)' })).toContainText('verify-picks-events.mjs');
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  await audit(page, 'event catalogue 390');
});

test('rolling a token from its page: the new secret once, both secrets working and listed with their use, each request logged', async ({
  page,
  playwright,
}) => {
  test.setTimeout(60_000);
  await signInKept(page, 'editor', '/developers');
  const made = await makeToken(page, ['Tennis']);
  const client = await playwright.request.newContext({ baseURL: new URL(page.url()).origin });
  const me = (secret: string) => client.get('/api/v1/me', { headers: { Authorization: `Bearer ${secret}` } });
  const tokenPage = new TokenPage(page, made.id);
  await tokenPage.open();
  const fresh = await tokenPage.roll('1 hour');
  expect(fresh).toMatch(/^pvt_[A-Za-z0-9_-]{43}$/);
  await expect(tokenPage.secret('current')).toContainText(fresh.slice(0, 10));
  await expect(tokenPage.secret('previous')).toContainText(`${made.prefix}… (rolled from, works until`);
  expect((await me(made.token)).status()).toBe(200);
  expect((await me(fresh)).status()).toBe(200);
  // Each secret's use, from the request log (written every 2 s), and the requests themselves with their secret.
  await expect(async () => {
    await tokenPage.open();
    await expect(tokenPage.secret('previous')).toContainText('last used');
    await expect(tokenPage.secret('current')).toContainText('last used');
  }).toPass({ timeout: 15_000 });
  await expect(tokenPage.requests.locator('tbody tr').filter({ hasText: '/api/v1/me' })).toHaveCount(2);
  await expect(tokenPage.requests).toContainText(`${made.prefix}…`);
  await tokenPage.open({ status: '4xx' });
  await expect(page.getByTestId('token-requests-none')).toContainText('No requests match these filters');
  await client.dispose();
});
