import AxeBuilder from '@axe-core/playwright';
import { expect, sandboxApi, settled, signInKept, test } from '../support/fixtures';
import { LoginPage, PortalPage } from '../support/pages';
import { RecordsPage } from '../support/pages/records-page';

/** axe-core on every main page, in light and in dark mode: no violations at all. Tables sortable from the keyboard. */

test.describe.configure({ mode: 'parallel' });

/** Every rule of WCAG 2.1 A and AA; in dark mode only the rules that read colours (nothing else changes with the scheme). */
async function audit(page: import('@playwright/test').Page, rules: 'all' | 'colours' = 'all') {
  const builder = new AxeBuilder({ page });
  const results = await (
    rules === 'all'
      ? builder.withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      : builder.withRules(['color-contrast', 'link-in-text-block'])
  ).analyze();
  const scheme = rules === 'all' ? 'light' : 'dark';
  expect(
    results.violations.map((v) => `${scheme}: ${v.id}: ${v.help} (${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target.join(' ')})`),
  ).toEqual([]);
}

test('sign-in page', async ({ page }) => {
  await new LoginPage(page).visit();
  await audit(page);
});

// Every main page, in groups of a few, so that each test stays short on a busy machine and the groups spread over
// workers. Each page is loaded once and audited in light mode, then in dark mode (the system's scheme, followed live).
// The records pages show their smallest page size and the audit trail its failures (its filter chips shown too):
// every row is the same components, and axe's time grows with each. /developers: developers.spec.ts, at both sizes.
const PAGES = (pickId: string) => [
  ['/', '/licence', '/picks?sport=Football&limit=25'],
  ['/results?limit=25', `/picks/${encodeURIComponent(pickId)}`, '/picks?status=nope'],
  ['/coverage', '/admin/users', '/admin/audit?outcome=failed'],
  ['/admin/proofs', '/exports', '/changes'],
  ['/changes?kind=nope', '/history', '/history?asOf=nope'],
  ['/health', '/alerts', '/deliveries', '/tokens'],
];

for (const group of [0, 1, 2, 3, 4, 5])
  test(`main pages, light and dark mode, group ${group + 1} of 6`, async ({ page }) => {
    test.setTimeout(90_000);
    await signInKept(page, 'admin');
    const { data } = await sandboxApi<{ data: { id: string }[] }>('/picks?limit=1');
    for (const url of PAGES(data[0]!.id)[group]!) {
      await page.emulateMedia({ colorScheme: 'light' });
      await new PortalPage(page, url).visit();
      await settled(page);
      if (url === '/coverage') await page.getByTestId('coverage-report').waitFor();
      await audit(page);
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await background();
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background(), `${url} turned dark`).not.toBe(light);
      await audit(page, 'colours');
    }
  });

test('filters are labelled and the table sorts from the keyboard', async ({ page }) => {
  await signInKept(page, 'viewer');
  await new RecordsPage(page, '/picks').visit('sport=Football&limit=25');
  for (const label of ['Sport', 'League', 'Status', 'Result', 'From (UTC day)', 'To (UTC day)', 'Page size']) {
    await expect(page.getByRole('search').getByLabel(label, { exact: true })).toBeVisible();
  }
  // The heading orders the whole set from the portal's index, which follows the feed's first poll.
  await expect
    .poll(
      async () => ((await (await page.request.get('/api/records/search?kind=picks&sport=Football')).json()) as { total: number }).total,
      {
        timeout: 60_000,
      },
    )
    .toBeGreaterThan(0);
  const oddsHeader = page.locator('th', { hasText: 'Odds' });
  await oddsHeader.getByRole('link').focus();
  await page.keyboard.press('Enter');
  await expect(oddsHeader).toHaveAttribute('aria-sort', /ascending|descending/);
});
