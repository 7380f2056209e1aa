import { expect, openAccount, ROLES, sandboxApi, signIn, signInKept, snapshot, test } from '../support/fixtures';
import { RecordsPage } from '../support/pages/records-page';
import { e2eDay } from '../support/ports';
import { NoSuchPage, PickPage, PortalPage } from '../support/pages';

type List = {
  data: {
    id: string;
    sport: string;
    league: string;
    status: string;
    result: string | null;
    eventDate: string;
    attribution: string;
    homeTeam: string;
  }[];
  page: { nextCursor: string | null };
};

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** Filters and paging read the same records for every role: the least and the most privileged page (the admin's has every control) try them. */
const FILTERING_ROLES: readonly (typeof ROLES)[number][] = ['viewer', 'admin'];

for (const role of ROLES)
  test.describe(`${role}: a day in the portal`, () => {
    test.beforeEach(async ({ page }) => signInKept(page, role));

    test('overview and licence', async ({ page }) => {
      await expect(page.getByText('Northwind Media Group')).toBeVisible();
      await expect(page.getByTestId('health-status')).toHaveText(/ok/);
      if (role === 'viewer') await snapshot(page, 'overview');
      await page.getByRole('link', { name: 'Licence', exact: true }).click();
      await expect(page.getByRole('heading', { name: 'Licence', level: 1 })).toBeVisible();
      await expect(page.locator('dd').filter({ hasText: 'Trinidad & Tobago Premier League' }).first()).toBeVisible();
      await expect(page.getByText('lic_full')).toBeVisible();
      if (role === 'viewer') await snapshot(page, 'licence');
    });

    if (FILTERING_ROLES.includes(role))
      test('filters by each filter and by combinations, matching the API', async ({ page }) => {
        const picks = new RecordsPage(page, '/picks');
        await picks.open('limit=50');
        await expect(picks.rows).toHaveCount(50);

        await picks.filter({ Sport: 'Football' });
        await expect
          .poll(() => picks.ids())
          .toEqual((await sandboxApi<List>(`/picks?${q({ sport: 'Football', limit: '50' })}`)).data.map((p) => p.id));
        // One line a row: the sport, then its league and round.
        expect((await picks.rows.locator('.under > span:last-child').allInnerTexts()).filter((t) => !t.startsWith('Football · '))).toEqual(
          [],
        );

        await picks.filter({ League: 'Trinidad & Tobago Premier League' });
        await expect(page).toHaveURL(/league=Trinidad\+%26\+Tobago\+Premier\+League/);
        await expect
          .poll(() => picks.ids())
          .toEqual(
            (
              await sandboxApi<List>(`/picks?${q({ sport: 'Football', league: 'Trinidad & Tobago Premier League', limit: '50' })}`)
            ).data.map((p) => p.id),
          );

        await picks.filter({ Sport: '', League: '', Status: 'upcoming' });
        await expect.poll(async () => new Set(await picks.columnTexts('Status'))).toEqual(new Set(['upcoming']));

        await picks.filter({ Status: 'settled', Result: 'win' });
        await expect.poll(async () => new Set(await picks.columnTexts('Result'))).toEqual(new Set(['win']));
        await expect.poll(async () => new Set(await picks.columnTexts('Status'))).toEqual(new Set(['settled']));

        await picks.filter({ Status: '', Result: '', from: e2eDay(-10), to: e2eDay(-8) });
        const inRange = await sandboxApi<List>(
          `/picks?${q({ from: `${e2eDay(-10)}T00:00:00.000Z`, to: `${e2eDay(-7)}T00:00:00.000Z`, limit: '50' })}`,
        );
        expect(inRange.data.length).toBeGreaterThan(0);
        await expect.poll(() => picks.ids()).toEqual(inRange.data.map((p) => p.id));

        await picks.filter({ Sport: 'Basketball', Status: 'settled', 'Page size': '25', from: e2eDay(-19), to: '' });
        const combined = await sandboxApi<List>(
          `/picks?${q({ sport: 'Basketball', status: 'settled', from: `${e2eDay(-19)}T00:00:00.000Z`, limit: '25' })}`,
        );
        await expect.poll(() => picks.ids()).toEqual(combined.data.map((p) => p.id));
        if (role === 'viewer') await snapshot(page, 'picks-filtered');
      });

    if (FILTERING_ROLES.includes(role))
      test('pages forward and back, by link and by the back button', async ({ page }) => {
        const picks = new RecordsPage(page, '/picks');
        await picks.open('sport=Tennis&limit=25');
        const first = await picks.ids();
        const pageOne = await sandboxApi<List>('/picks?sport=Tennis&limit=25');
        const pageTwo = await sandboxApi<List>(`/picks?sport=Tennis&limit=25&cursor=${encodeURIComponent(pageOne.page.nextCursor!)}`);
        expect(first).toEqual(pageOne.data.map((p) => p.id));

        await page.getByRole('link', { name: 'Next →' }).first().click();
        await expect(page.getByTestId('page-number').first()).toHaveText('Page 2');
        await expect.poll(() => picks.ids()).toEqual(pageTwo.data.map((p) => p.id));
        await page.getByRole('link', { name: 'Next →' }).first().click();
        await expect(page.getByTestId('page-number').first()).toHaveText('Page 3');
        const third = await picks.ids();
        expect(third).not.toEqual(pageTwo.data.map((p) => p.id));

        await page.getByRole('link', { name: '← Previous' }).first().click();
        await expect(page.getByTestId('page-number').first()).toHaveText('Page 2');
        await expect.poll(() => picks.ids()).toEqual(pageTwo.data.map((p) => p.id));
        await page.getByRole('link', { name: '← Previous' }).first().click();
        await expect(page.getByTestId('page-number').first()).toHaveText('Page 1');
        await expect.poll(() => picks.ids()).toEqual(first);

        await page.goBack();
        await expect(page.getByTestId('page-number').first()).toHaveText('Page 2');
        await page.goForward();
        await expect(page.getByTestId('page-number').first()).toHaveText('Page 1');
      });

    test('opens a pick with logos and attribution, then sees results and signs out', async ({ page }) => {
      const picks = new RecordsPage(page, '/picks');
      await picks.open('sport=Football&limit=50');
      const expected = (await sandboxApi<List>('/picks?sport=Football&limit=50')).data;
      // Each row carries its attribution (on hover, and on its page); the line under the table names each distinct one.
      expect(
        await picks.table.locator('[data-attribution]').evaluateAll((els) => els.map((el) => el.getAttribute('data-attribution'))),
      ).toEqual(expected.map((p) => p.attribution));
      for (const attribution of new Set(expected.map((p) => p.attribution)))
        await expect(page.getByTestId('attributions')).toContainText(attribution);
      const logos = picks.table.locator('img[src*="/logos/"]');
      expect(await logos.count()).toBeGreaterThan(50);
      // Logos load lazily: wait for the first to finish (a broken one never gets a width, so this still fails).
      await expect.poll(() => logos.first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      await expect(picks.table.locator('[data-logo-placeholder]').first()).toBeVisible(); // null logos: initials

      await picks.rows
        .first()
        .getByRole('link', { name: /Details/ })
        .click();
      await expect(page.getByRole('heading', { level: 1 })).toContainText(expected[0]!.homeTeam);
      await expect(page.locator('[data-attribution]')).toHaveText(expected[0]!.attribution);
      await expect(page.getByText(expected[0]!.id, { exact: true }).first()).toBeVisible();
      if (role === 'viewer') await snapshot(page, 'pick-detail');

      const results = new RecordsPage(page, '/results');
      await results.open('league=NBA');
      await expect(results.rows).not.toHaveCount(0);
      expect(new Set(await results.columnTexts('Status'))).toEqual(new Set(['settled']));
      if (role === 'viewer') await snapshot(page, 'results');

      await openAccount(page);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/\/login/);
      await new RecordsPage(page, '/picks').visit();
      await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fpicks/);
    });
  });

test('ids with : ~ + = open their detail page; an unknown id is the not-found page', async ({ page }) => {
  await signInKept(page, 'viewer');
  const { data } = await sandboxApi<List>('/picks?limit=1');
  const id = data[0]!.id;
  expect(id).toMatch(/[:~+=]/);
  await new PickPage(page, id).visit();
  await expect(page.getByText(id, { exact: true }).first()).toBeVisible();
  // An unknown id answers HTTP 404, not a not-found page sent with 200.
  const unknown = await new PickPage(page, 'pk:nope:0~0+0=').visit();
  expect(unknown!.status()).toBe(404);
  await expect(page.getByTestId('pick-not-found')).toBeVisible();
  const malformed = await new NoSuchPage(page, '/picks/%E0%A4%A').visit();
  expect(malformed!.status()).toBe(400);
  await expect(page.getByText('malformed %-escape')).toBeVisible();
});

test('upstream text with markup shows literally and never runs', async ({ page }) => {
  await signInKept(page, 'viewer');
  let found: { id: string; reasoning: string } | undefined;
  let cursor: string | null = null;
  while (!found) {
    const list: { data: { id: string; reasoning?: string }[]; page: { nextCursor: string | null } } = await sandboxApi(
      `/picks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    found = list.data.find((p) => p.reasoning?.includes('<script>')) as typeof found;
    cursor = list.page.nextCursor;
    if (!cursor) break;
  }
  expect(found, 'the sandbox seeds records with markup in reasoning').toBeDefined();
  let dialogs = 0;
  page.on('dialog', (dialog) => {
    dialogs += 1;
    void dialog.dismiss();
  });
  await new PickPage(page, found!.id).visit();
  await expect(page.getByTestId('reasoning')).toHaveText(found!.reasoning);
  expect(await page.locator('[data-testid=reasoning] script, [data-testid=reasoning] b').count()).toBe(0);
  expect(dialogs).toBe(0);
});

for (const role of ROLES) {
  test(`${role}: signs in and sees the navigation of the role`, async ({ page }) => {
    await signIn(page, role);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Picks' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Results' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Coverage' })).toHaveCount(role === 'manager' || role === 'admin' ? 1 : 0);
    // The account menu's panel is drawn when first opened: no page builds its ~400 time zones unasked.
    await expect(page.getByLabel('Time zone')).toHaveCount(0);
    await openAccount(page);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
    expect(await page.getByLabel('Time zone').locator('option').count()).toBeGreaterThan(100);
    await expect(page.getByText(role, { exact: true }).first()).toBeVisible();
  });
}

test('a page view asks the portal for the page alone: no link prefetches it would render for nothing', async ({ page }) => {
  // Every page is dynamic: a prefetch returns ~270 bytes of route tree for ~7 ms of server work, and the
  // header's links made many of them per view (docs/adr/0003). Navigation stays client-side.
  await signInKept(page, 'admin');
  const asked: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    // Documents and the router's fetches (a prefetch is a fetch); scripts, styles and icons are static files.
    // The portal's own API calls a page makes once loaded (the overview's tiles, a preferences sync after
    // sign-in) are data, not prefetches of pages.
    if (url.pathname.startsWith('/api/')) return;
    if (['document', 'fetch'].includes(request.resourceType())) asked.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  for (const path of ['/', '/picks?limit=50', '/licence', '/changes']) {
    asked.length = 0;
    await new PortalPage(page, path).visit();
    await page.waitForLoadState('networkidle');
    await page.mouse.move(200, 30); // over the header's links, too
    await page.waitForTimeout(1_000);
    expect(asked, path).toEqual([`GET ${path}`]);
  }
  // A click on the sidebar's plain anchors (docs/adr/0019) still navigates without reloading the document...
  asked.length = 0;
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Results', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Results', level: 1 })).toBeVisible();
  expect(asked.filter((request) => request.includes('/results'))).toHaveLength(1);
  expect(asked.some((request) => request.includes('_rsc='))).toBe(true);
  await expect(nav.getByRole('link', { name: 'Results', exact: true })).toHaveAttribute('aria-current', 'page');
  // ...and one with a modifier key is the browser's: the page in a new tab, this one left where it is.
  const [opened] = await Promise.all([
    page.context().waitForEvent('page'),
    nav.getByRole('link', { name: 'Licence', exact: true }).click({ modifiers: ['ControlOrMeta'] }),
  ]);
  // A new tab starts at about:blank before it commits the link's address: wait for the address, not a load state.
  await opened.waitForURL((url) => url.pathname === '/licence');
  expect(new URL(page.url()).pathname).toBe('/results');
  await opened.close();
});
