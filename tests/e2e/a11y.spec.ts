import AxeBuilder from '@axe-core/playwright';
import { expect, sandboxApi, signIn, test } from './fixtures';

/** axe-core on every main page, in light and in dark mode: no violations at all. Tables sortable from the keyboard. */

test.describe.configure({ mode: 'parallel' });

async function audit(page: import('@playwright/test').Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target.join(' ')})`)).toEqual([]);
}

test('sign-in page', async ({ page }) => {
  await page.goto('/login');
  await audit(page);
});

// Every main page, in groups of a few, so that each test stays short on a busy machine and the groups spread over workers.
const PAGES = (pickId: string) => [
  ['/', '/licence', '/picks?sport=Football', '/results', `/picks/${encodeURIComponent(pickId)}`],
  ['/picks?status=nope', '/coverage', '/admin/users', '/admin/audit', '/admin/proofs'],
  ['/exports', '/changes', '/changes?kind=nope', '/history', '/history?asOf=nope'],
  ['/health', '/alerts', '/deliveries', '/tokens'],
];

for (const scheme of ['light', 'dark'] as const)
  for (const group of [0, 1, 2, 3])
    test(`main pages, ${scheme} mode, group ${group + 1} of 4`, async ({ browser }) => {
      test.setTimeout(90_000);
      const context = await browser.newContext({ colorScheme: scheme });
      const page = await context.newPage();
      await signIn(page, 'admin');
      const { data } = await sandboxApi<{ data: { id: string }[] }>('/picks?limit=1');
      for (const url of PAGES(data[0]!.id)[group]!) {
        await page.goto(url);
        await page.waitForLoadState('networkidle');
        if (url === '/coverage') await page.getByTestId('coverage-report').waitFor();
        await audit(page);
      }
      await context.close();
    });

test('filters are labelled and the table sorts from the keyboard', async ({ page }) => {
  await signIn(page, 'viewer');
  await page.goto('/picks?sport=Football&limit=25');
  for (const label of ['Sport', 'League', 'Status', 'Result', 'From (UTC day)', 'To (UTC day)', 'Page size']) {
    await expect(page.getByRole('search').getByLabel(label, { exact: true })).toBeVisible();
  }
  const oddsHeader = page.locator('th', { hasText: 'Odds' });
  await oddsHeader.getByRole('button').focus();
  await page.keyboard.press('Enter');
  await expect(oddsHeader).toHaveAttribute('aria-sort', /ascending|descending/);
});
