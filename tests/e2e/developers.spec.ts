import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, signIn, snapshot, test } from './fixtures';

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
  await signIn(page, 'editor', '/developers');
  for (const width of [1440, 390])
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('/developers');
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

test('“Try” with one’s own token returns its records; the token is kept nowhere and sent without a cookie', async ({ page, context }) => {
  test.setTimeout(90_000);
  await signIn(page, 'editor', '/developers');
  const tennis = await makeToken(page, ['Tennis']);
  await page.goto('/developers');
  await page.getByLabel('Try requests with', { exact: true }).selectOption(tennis.id);
  // The wrong token for the one chosen is refused in words, before anything is sent.
  await page.getByLabel(`The token “${tennis.name}”`).fill(`pvt_${'x'.repeat(43)}`);
  await page.getByRole('button', { name: 'Use for requests' }).click();
  await expect(page.getByText(`That is not the token “${tennis.name}”`)).toBeVisible();
  await page.getByLabel(`The token “${tennis.name}”`).fill(tennis.token);
  await page.getByRole('button', { name: 'Use for requests' }).click();
  await expect(page.getByTestId('try-with')).toContainText(`your token “${tennis.name}” (may read`);
  await expect(page.getByLabel(`The token “${tennis.name}”`)).toHaveValue('');

  const doc = reference(page);
  await doc.getByText('/api/v1/picks', { exact: true }).first().click();
  const sent = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/picks');
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/picks');
  await doc.getByRole('button', { name: 'TRY', exact: true }).first().click();
  const request = await sent;
  const response = await answered;
  expect(request.headers()['authorization']).toBe(`Bearer ${tennis.token}`);
  expect(await request.allHeaders()).not.toHaveProperty('cookie');
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { data: { id: string; sport: string }[] };
  expect(body.data.length).toBeGreaterThan(0);
  expect(new Set(body.data.map((p) => p.sport))).toEqual(new Set(['Tennis']));
  await expect(doc.getByText(body.data[0]!.id).first()).toBeVisible();

  // Nowhere kept: not in either storage, a cookie or the address.
  const kept = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
  expect(kept).not.toContain(tennis.token);
  expect(JSON.stringify(await context.cookies())).not.toContain(tennis.token);
  await page.getByRole('button', { name: 'Forget it' }).click();
  await expect(page.getByTestId('try-with')).not.toContainText(tennis.name);
});

test('admins also get the portal’s own API; a role without tokens is refused the page', async ({ page, browser }) => {
  test.setTimeout(60_000);
  await signIn(page, 'admin', '/developers');
  await page.getByLabel('Reference').selectOption('portal');
  await expect(reference(page).getByText('/api/deliveries', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('try-with')).toContainText('as you, signed in');
  await audit(page, 'portal API');

  const viewer = await browser.newPage();
  await signIn(viewer, 'viewer');
  const refused = await viewer.goto('/developers');
  expect(refused!.status()).toBe(403);
  await viewer.close();
});
