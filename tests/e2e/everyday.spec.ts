import { expect, openAccount, ROLES, settled, signInKept, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { walkSandbox } from '../support/session';
import { eventsCutShort, RecordsPage, recordsTable } from '../support/pages/records-page';
import { LicencePage, NoSuchPage, PortalPage } from '../support/pages';
import { UsersPage } from '../support/pages/users-page';

/**
 * Pages fit for all-day use (every page at a desktop and a phone: fit.spec.ts): a skip link leads to the
 * content, the 404 and 403 pages keep the portal's frame, times follow the chosen zone, filters stay in the
 * address. Dark mode follows the system.
 */

test('at 1440×900 every role sees 14 rows of /picks above the fold under a one-row header, with no event cut below 18 characters a side', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  for (const role of ROLES) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signInKept(page, role, '/picks?limit=50');
    // With the index filled, the count line says its total too: the rows must still fit beneath it.
    await expect
      .poll(async () => ((await (await page.request.get('/api/records/search?kind=picks')).json()) as { total: number }).total, {
        timeout: 60_000,
      })
      .toBeGreaterThan(0);
    await page.reload();
    await expect(page.getByTestId('index-total')).toBeVisible();
    const rows = recordsTable(page).locator('tbody tr');
    await expect(rows).toHaveCount(50);
    const visible = await rows.evaluateAll((trs) => trs.filter((tr) => tr.getBoundingClientRect().bottom <= window.innerHeight).length);
    expect(visible, role).toBeGreaterThanOrEqual(14);
    // One row: the header is as tall as its tallest control, and the navigation is beside the page, not in it.
    expect(
      await page
        .locator('body > header, header')
        .first()
        .evaluate((h) => h.getBoundingClientRect().height),
      role,
    ).toBeLessThanOrEqual(64);
    // The default columns fit: the table's own region does not scroll sideways either.
    const region = page.getByRole('region', { name: /matching the filters/ });
    expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth), role).toBeLessThanOrEqual(0);
    // Each side of an event shows whole, or at least 18 of its characters (measured against its full width).
    const cut = await eventsCutShort(page);
    expect(cut, role).toEqual([]);
    await context.close();
  }
});

test('at 1440×900 the other lists read without sideways scrolling, 14 rows above the fold for every role', async ({ browser }) => {
  test.setTimeout(120_000);
  const lists: Record<string, string[]> = {
    viewer: ['/results?limit=50', '/changes'],
    editor: ['/results?limit=50', '/changes'],
    manager: ['/results?limit=50', '/changes'],
    admin: ['/results?limit=50', '/changes', '/admin/audit', '/alerts', '/health'],
  };
  for (const role of ROLES) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signInKept(page, role, '/');
    for (const path of lists[role]!) {
      await new PortalPage(page, path).visit();
      await settled(page);
      // The list's rows (the records' table, or the page's first: summaries are folded into a line or a toggle above it).
      const records = path.startsWith('/results');
      const rows = (records ? recordsTable(page) : page.locator('main table').first()).locator('tbody > tr');
      if (records) await expect(rows).toHaveCount(50);
      const measured = await rows.evaluateAll((trs) => ({
        all: trs.length,
        above: trs.filter((tr) => tr.getBoundingClientRect().bottom <= window.innerHeight).length,
      }));
      if (path !== '/health') expect(measured.above, `${role} ${path}`).toBeGreaterThanOrEqual(Math.min(14, measured.all));
      // Nothing scrolls sideways: not the page, not a table's own frame (long hashes are shortened, with a copy button).
      const scrolling = await page
        .locator('main *')
        .evaluateAll((els) =>
          els
            .filter(
              (el) =>
                el.checkVisibility() && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1,
            )
            .map(
              (el) =>
                `${el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.tagName}: ${el.scrollWidth - el.clientWidth} px`,
            ),
        );
      expect(scrolling, `${role} ${path}`).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    }
    await context.close();
  }
});

test('the total is counted in the background, and paging goes first, previous, next and last', async ({ page }) => {
  await signInKept(page, 'viewer', '/picks?limit=200');
  const all = await walkSandbox(`http://127.0.0.1:${E2E.sandboxPort}`, E2E.sandboxKey, 'picks', {});
  await expect(page.getByTestId('record-count').first()).toContainText('Records 1–200, more on the next page');
  await expect(page.getByTestId('count-all')).toHaveText(`${all.length.toLocaleString('en-GB')} records in all`, { timeout: 60_000 });
  await page.getByRole('link', { name: 'Next →' }).first().click();
  await expect(page.getByTestId('record-count')).toContainText('Records 201–400');
  const last = Math.ceil(all.length / 200);
  await page.getByTestId('last-page').first().click();
  await expect(page.getByTestId('record-count')).toContainText(
    `Records ${((last - 1) * 200 + 1).toLocaleString('en-GB')}–${all.length.toLocaleString('en-GB')}, the last of them`,
  );
  expect(
    await recordsTable(page)
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-pick-id'))),
  ).toEqual(all.slice((last - 1) * 200).map((pick) => pick.id));
  await expect(page.getByRole('navigation', { name: 'Pages' }).first().getByText('Last', { exact: true })).toHaveAttribute(
    'aria-disabled',
    'true',
  );
  await page.getByRole('link', { name: 'First', exact: true }).first().click();
  await expect(page.getByTestId('record-count')).toContainText('Records 1–200');
});

test('comfortable rows and the columns shown are each person’s, drawn by the server', async ({ page }) => {
  await signInKept(page, 'viewer', '/picks?limit=10');
  await page.getByText('Columns', { exact: true }).click();
  await page.getByLabel('Comfortable rows').check();
  await page.getByRole('checkbox', { name: 'Line' }).uncheck();
  await page.reload();
  await expect(recordsTable(page)).toHaveAttribute('data-density', 'comfortable');
  await expect(recordsTable(page).locator('th', { hasText: 'Line' })).toHaveCount(0);
  await expect
    .poll(async () => ((await (await page.request.get('/api/preferences')).json()) as { preferences: object }).preferences)
    .toMatchObject({ density: 'comfortable', hiddenColumns: ['competition', 'line', 'bookmaker', 'confidenceTier', 'publishedAt'] });
  // Back to the defaults, for the tests after this one.
  const reset = await page.request.put('/api/preferences', {
    data: { density: 'compact', hiddenColumns: ['competition', 'bookmaker', 'confidenceTier', 'publishedAt'] },
    headers: { origin: `http://localhost:${E2E.port}` },
  });
  expect(reset.status()).toBe(200);
});

test('a time zone chosen on one page is used for the times of every other page, and days stay days', async ({ page }) => {
  await signInKept(page, 'admin', '/licence');
  // Choosing a zone saves it and reloads the page: wait for that reload before going elsewhere.
  const choose = async (zone: string) => {
    await openAccount(page);
    await Promise.all([page.waitForEvent('load'), page.getByLabel('Time zone').selectOption(zone)]);
  };
  await choose('Asia/Tokyo');
  for (const path of ['/', '/picks?limit=25', '/results?limit=25', '/changes', '/admin/users', '/admin/audit', '/exports', '/licence']) {
    await new PortalPage(page, path).visit();
    await settled(page);
    const times = page.locator('main time[datetime]:not([data-day])');
    if (!['/exports', '/changes', '/licence'].includes(path)) expect((await times.allInnerTexts()).length, path).toBeGreaterThan(0);
    // The browser rewrites the server's UTC times once the page's scripts run (<AfterLoad>), streamed tables included.
    await expect
      .poll(async () => (await times.allInnerTexts()).filter((text) => !/GMT\+9|JST/.test(text)), { message: path, timeout: 10_000 })
      .toEqual([]);
  }
  // The licence's expiry is a day: shown as that day, in no zone.
  await new LicencePage(page).visit();
  await expect(page.locator('main time[data-day]').first()).toHaveText(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
  await choose('UTC');
  await new RecordsPage(page, '/picks').visit('limit=5');
  await settled(page);
  const utc = await page.locator('main time[datetime]').allInnerTexts();
  expect(utc.length).toBeGreaterThan(0);
  expect(utc.filter((text) => !/UTC/.test(text))).toEqual([]);
  // The choice is the person's (kept in the store): back to the browser's own, for the tests after this one.
  await choose('');
});

test('a filter form puts only the filters that are set in the address', async ({ page }) => {
  await signInKept(page, 'viewer', '/picks?limit=50');
  await page.getByRole('search').getByLabel('Sport', { exact: true }).selectOption('Tennis');
  // No Apply on a wide screen: the choice applies by itself.
  await expect(page.getByRole('search').getByRole('button', { name: 'Apply' })).toBeHidden();
  await page.waitForURL(/sport=Tennis/);
  expect(new URL(page.url()).search).toBe('?sport=Tennis&limit=50');
});

test('the records pages open on a useful window, stated in the address, with one-click presets', async ({ page }) => {
  const day = (offset: number) =>
    new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + offset * 86_400_000).toISOString().slice(0, 10);
  await signInKept(page, 'viewer', '/picks');
  await page.waitForURL(/\/picks\?/);
  expect(new URL(page.url()).search).toBe(`?from=${day(0)}&to=${day(6)}`);
  const presets = page.getByRole('navigation', { name: 'Date presets' });
  await expect(presets.locator('[aria-current=true]')).toHaveText('Next 7 days');
  await expect(page.getByRole('search').getByLabel('From (UTC day)')).toHaveValue(day(0));
  await presets.getByRole('link', { name: 'Last 7 days' }).click();
  await page.waitForURL(new RegExp(`from=${day(-6)}&to=${day(0)}`));
  await presets.getByRole('link', { name: 'All dates' }).click();
  await page.waitForURL((url) => !url.search.includes('from='));
  await expect(presets.locator('[aria-current=true]')).toHaveText('All dates');
  await new RecordsPage(page, '/results').visit();
  await page.waitForURL(/\/results\?/);
  expect(new URL(page.url()).search).toBe(`?from=${day(-6)}&to=${day(0)}`);
});

test('a skip link leads to the content, and the 404 and 403 pages keep the frame and its navigation', async ({ page }) => {
  await signInKept(page, 'viewer', '/licence');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await skip.press('Enter');
  await expect(page.locator('main#main')).toBeFocused();
  const missing = await new NoSuchPage(page, '/no-such-page').visit();
  expect(missing!.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Picks' })).toBeVisible();
  const refused = await new UsersPage(page).visit();
  expect(refused!.status()).toBe(403);
  await expect(page.getByRole('heading', { name: 'Not for your role' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Picks' })).toBeVisible();
  // One frame, one <main>: the page's own body sits inside the layout's frame, not in a second one.
  await expect(page.locator('main')).toHaveCount(1);
  await expect(page.getByRole('link', { name: 'Skip to content' })).toHaveCount(1);
});

test('the audit filters name a wrong value once, with the allowed values', async ({ page }) => {
  await signInKept(page, 'admin', '/admin/audit?action=bogus');
  const problems = page.getByTestId('error-problems');
  await expect(problems).toHaveText(/^action must be one of sign-in, sign-out, export\.picks/);
  expect((await page.locator('[data-error-code]').innerText()).match(/sign-out/g)).toHaveLength(1);
});

test('dark mode follows the system', async ({ browser }) => {
  for (const scheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ colorScheme: scheme });
    const page = await context.newPage();
    await signInKept(page, 'viewer', '/picks');
    // The body's colour as pixels (computed styles may be in lab() or oklch()).
    const [r, g, b] = await page.evaluate(() => {
      const context = document.createElement('canvas').getContext('2d')!;
      context.fillStyle = getComputedStyle(document.body).backgroundColor;
      context.fillRect(0, 0, 1, 1);
      return [...context.getImageData(0, 0, 1, 1).data];
    });
    const background = `rgb(${r}, ${g}, ${b})`;
    const light = (r! + g! + b!) / 3 > 128;
    expect(light, `${scheme}: body ${background}`).toBe(scheme === 'light');
    await context.close();
  }
});

test('the league list follows the chosen sport, and a league of another sport is let go', async ({ page }) => {
  await signInKept(page, 'viewer', '/picks?league=Premier+League');
  const form = page.getByRole('search');
  const leagues = () =>
    form
      .getByLabel('League', { exact: true })
      .locator('option')
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
  expect(await leagues()).toContain('ATP Tour');
  await expect(form.getByLabel('League', { exact: true })).toHaveValue('Premier League');
  await form.getByLabel('Sport', { exact: true }).selectOption('Tennis');
  // The feed has seen Tennis's leagues: Premier League is not among them, and no longer chosen.
  await expect.poll(leagues).not.toContain('Premier League');
  expect(await leagues()).toContain('ATP Tour');
  await expect(form.getByLabel('League', { exact: true })).toHaveValue('');
  await page.waitForURL((url) => url.searchParams.get('sport') === 'Tennis' && !url.searchParams.has('league'));
});

test('after "Poll now" the changes page updates itself when the poll has ended, with no reload', async ({ page }) => {
  test.setTimeout(120_000);
  await signInKept(page, 'admin', '/changes');
  await page.getByRole('button', { name: 'Poll now' }).click();
  const note = page.getByTestId('poll-now');
  await expect(note).toHaveAttribute('data-polled', /started|running/);
  await expect(note).toContainText('updates itself');
  // No reload from here: the page refreshes from the server until the poll it asked for is complete.
  await expect(note).toHaveAttribute('data-polled', 'ended', { timeout: 90_000 });
  await expect(note).toHaveText('The poll you asked for has ended: what it found is below.');
  await expect(page.getByTestId('feed-status')).not.toContainText('polling now');
});

test('the audit table fits 1440 px: long filters read decoded, cut to one line with the whole on hover', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInKept(page, 'admin', '/admin/audit?action=settings.change');
  const region = page.getByRole('region', { name: 'Audit entries' });
  expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  // The first start recorded the settings: URLs as written, not %-encoded, and every column in view.
  const filters = page.locator('[data-cell="filters"]').last();
  await expect(filters).toHaveAttribute('title', /PICKS_API_BASE_URL: http:\/\/127\.0\.0\.1:\d+/);
  await expect(filters).not.toContainText('%3A');
  for (const cell of ['outcome', 'records', 'sha256', 'address'])
    expect(
      await page
        .locator(`[data-cell="${cell}"]`)
        .last()
        .evaluate((el) => el.getBoundingClientRect().right),
      cell,
    ).toBeLessThanOrEqual(1440);
  const row = await page
    .locator('[data-table] tbody tr')
    .first()
    .evaluate((tr) => tr.getBoundingClientRect().height);
  expect(row).toBeLessThanOrEqual(44);
});
