import type { Page } from '@playwright/test';
import { expect, settled, signInKept, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { startSandboxProcess } from '../support/sandbox-process';
import { startStaffPortal, type StaffPortal } from '../support/staff-portal';
import { eventsCutShort, RecordsPage } from '../support/pages/records-page';
import { LicencePage, PortalPage } from '../support/pages';

/**
 * Every page at a desktop (1440×900) and a phone (390×844): no page scrolls sideways, the current page is marked
 * in the navigation, and on a phone lists are cards with the first record in sight. The admin walks them: the
 * admin sees every page, the longest navigation, and every control another role has on a page (exports,
 * schedules, tokens, with an owner column besides). Each role's own navigation: journeys.spec.ts; its rows above
 * the fold: everyday.spec.ts. These only read, so they run beside the specs that change what the shared portals
 * show (playwright.config.ts, ONE_AT_A_TIME).
 */

test.describe.configure({ mode: 'parallel' });

const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Every page of the portal's navigation (the admin's: all of them), and the link that marks it. */
const PAGES: { path: string; nav: string }[] = [
  { path: '/', nav: 'Overview' },
  { path: '/licence', nav: 'Licence' },
  { path: '/picks', nav: 'Picks' },
  { path: '/results', nav: 'Results' },
  { path: '/changes', nav: 'Changes' },
  { path: '/history', nav: 'History' },
  { path: '/health', nav: 'Health' },
  { path: '/coverage', nav: 'Coverage' },
  { path: '/exports', nav: 'My exports' },
  { path: '/deliveries', nav: 'Deliveries' },
  { path: '/tokens', nav: 'Tokens' },
  { path: '/developers', nav: 'API reference' },
  { path: '/admin/users', nav: 'Users' },
  { path: '/admin/audit', nav: 'Audit' },
  { path: '/alerts', nav: 'Alerts' },
  { path: '/admin/proofs', nav: 'Proofs' },
];

/** The tables of /coverage that compare across their columns (days, fields, tiers): they scroll. The scope matrix is a card per league. */
const COMPARISONS = ['timeline-table', 'field-coverage', 'result-mix', 'calibration-table'];

/** The tables whose own frame scrolls sideways (by test id or caption), but those of COMPARISONS. */
const tablesScrollingSideways = (page: Page) =>
  page.locator('table').evaluateAll(
    (tables, allowed) =>
      tables
        .map((table) => {
          let frame = table.parentElement;
          while (frame && frame !== document.body && frame.scrollWidth <= frame.clientWidth + 1) frame = frame.parentElement;
          const name = table.getAttribute('data-testid') ?? table.querySelector(':scope > caption')?.textContent ?? '(unnamed)';
          return frame && frame !== document.body && !allowed.includes(name)
            ? `${name}: ${frame.scrollWidth - frame.clientWidth} px`
            : null;
        })
        .filter((found) => found !== null),
    COMPARISONS,
  );

/** How far the page itself scrolls sideways (a table's own scroll region does not count). */
const sideways = (page: import('@playwright/test').Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

for (const size of SIZES)
  test(`${size.name}, admin: no page scrolls sideways, and the current page is marked`, async ({ page }) => {
    test.setTimeout(120_000);
    await walk(page, size);
  });

/**
 * The same walk on a portal whose upstream sends the other shapes the spec allows (the sandbox's
 * SANDBOX_SHAPES=varied): /me with its licences in a list beside extra fields and long values, names that
 * are long or carry quotes, commas, accents and markup. The admin sees every page.
 */
test.describe('with the shapes real upstreams send', () => {
  test.describe.configure({ mode: 'serial' });
  const SANDBOX_PORT = 4241;
  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
  let portal: StaffPortal | undefined;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    sandbox = await startSandboxProcess(SANDBOX_PORT, { SANDBOX_SHAPES: 'varied', SANDBOX_PICKS: '2000' });
    portal = await startStaffPortal(3241, {
      roles: ['admin'],
      label: 'fit-varied',
      env: { ...upstreamEnv(sandbox.url, E2E.sandboxKey), AUTH_SECRET: 'fit-spec-secret-0123456789-abcdefghij' },
    });
  });
  test.afterAll(async () => {
    await portal?.stop();
    await sandbox?.stop();
  });
  for (const size of SIZES)
    test(`${size.name}, admin: every page fits, and the names show whole or cut with room`, async ({ page }) => {
      test.setTimeout(120_000);
      await walk(page, size, portal!.origin);
      await new LicencePage(page, portal!.origin).visit();
      await expect(page.getByText('Worldwide multi-sport data licence', { exact: false }).first()).toBeAttached();
      if (size.name === 'desktop') {
        await new RecordsPage(page, '/picks', portal!.origin).visit('limit=50');
        await expect(page.locator('[data-records] .teams b').first()).toBeVisible();
        // Markup in a name is its text, never markup.
        expect(await page.locator('[data-records] .teams b', { hasText: '<b>Oficial</b>' }).count()).toBeGreaterThan(0);
        expect(await eventsCutShort(page)).toEqual([]);
      }
    });
});

/** Opens a page; a reload the portal makes for the person's preferences (another spec changed them) is waited out and the page asked again. */
async function go(page: Page, url: string) {
  try {
    await new PortalPage(page, url).visit();
  } catch (error) {
    if (!String(error).includes('interrupted by another navigation')) throw error;
    await page.waitForLoadState('load');
    await new PortalPage(page, url).visit();
  }
}

async function walk(page: Page, size: (typeof SIZES)[number], origin?: string) {
  await page.setViewportSize({ width: size.width, height: size.height });
  await signInKept(page, 'admin', '/', origin);
  for (const { path, nav } of PAGES) {
    await go(page, origin ? `${origin}${path}` : path);
    await settled(page);
    if (path === '/coverage') await page.getByTestId('coverage-report').waitFor();
    expect(await sideways(page), `${path} at ${size.width} px`).toBeLessThanOrEqual(0);
    // The header is one row at every width.
    expect(
      await page
        .locator('header')
        .first()
        .evaluate((h) => h.getBoundingClientRect().height),
      `${path}: header`,
    ).toBeLessThanOrEqual(64);
    if (size.name === 'phone') {
      // Lists are cards, one an item; the first record of /picks and /results is on the first screen.
      const layouts = await page
        .locator('[data-records] tbody tr, [data-cards] tbody tr')
        // Rows in a closed fold (a sport's leagues) have no layout to read.
        .evaluateAll((trs) =>
          trs
            .filter((tr) => tr.checkVisibility())
            .slice(0, 3)
            .map((tr) => getComputedStyle(tr).display),
        );
      expect(
        layouts.filter((display) => display !== 'block'),
        `${path}: rows shown as cards`,
      ).toEqual([]);
      expect(await tablesScrollingSideways(page), `${path}: tables that scroll sideways`).toEqual([]);
      const fold = page.locator('details[data-leagues] summary').first();
      if (path === '/health' && (await fold.count()) > 0) {
        // A sport's leagues, opened, are cards inside its card.
        await fold.click();
        const league = page.locator('[data-leagues][open] [data-cards] tbody tr').first();
        expect(await league.evaluate((tr) => getComputedStyle(tr).display)).toBe('block');
        expect(await tablesScrollingSideways(page), `${path}: leagues that scroll sideways`).toEqual([]);
      }
      if (path === '/coverage') {
        // The scope matrix: a card per league, its heading whole.
        const league = page.getByTestId('coverage-matrix').locator('tbody tr').first();
        expect(await league.evaluate((tr) => getComputedStyle(tr).display)).toBe('block');
      }
      if (path === '/picks' || path === '/results') {
        const first = page.locator('[data-records] tbody tr').first();
        expect(await first.evaluate((tr) => tr.getBoundingClientRect().bottom), `${path}: the first record`).toBeLessThanOrEqual(
          size.height,
        );
      }
      // The navigation folds behind a Menu button, and opens on it.
      const menu = page.getByRole('button', { name: 'Menu' });
      await expect(menu).toBeVisible();
      await menu.click();
    }
    const current = page.getByRole('navigation', { name: 'Main' }).locator('[aria-current="page"]');
    await expect(current, path).toHaveText(nav);
  }
}
