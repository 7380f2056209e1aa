import { expect, sandboxApi, signIn, test } from './fixtures';
import { RecordsPage } from './pages/records-page';

/**
 * The records table after issue 13: server data rendered as plain markup, finished in the browser by one
 * component (local times, broken logos), sorting the rows on screen, columns chosen per browser.
 */

type List = { data: { id: string; odds: number | null; eventDate: string; homeTeamLogoUrl: string | null }[] };

test.use({ timezoneId: 'America/New_York' });

test('times in the viewer’s zone with UTC in the tooltip; sorting orders this page only, and says so', async ({ page }) => {
  await signIn(page, 'viewer');
  const picks = new RecordsPage(page, '/picks');
  await picks.open('sport=Basketball&limit=25');
  const expected = (await sandboxApi<List>('/picks?sport=Basketball&limit=25')).data;
  expect(await picks.ids()).toEqual(expected.map((p) => p.id));

  const when = picks.rows.first().locator('td').nth(1).locator('time');
  await expect(when).toHaveAttribute('datetime', new Date(expected[0]!.eventDate).toISOString());
  await expect(when).toHaveText(/\b(EST|EDT|GMT-[45])\b/); // New York, not the server's UTC
  await expect(when).toHaveAttribute('title', / UTC$/);

  await expect(page.getByTestId('sort-note')).toContainText('orders the rows on this page only');
  const odds = page.locator('th', { hasText: 'Odds' });
  const oddsValues = async () => (await picks.columnTexts('Odds')).map((text) => Number.parseFloat(text.replace(/^\+/, '')));
  await odds.getByRole('button').click();
  await expect(odds).toHaveAttribute('aria-sort', 'ascending');
  const sortedWithEmptiesLast = (values: number[], sign: number) => {
    const known = values.filter(Number.isFinite);
    expect(values.slice(0, known.length)).toEqual([...known].sort((a, b) => sign * (a - b)));
  };
  sortedWithEmptiesLast(await oddsValues(), 1);
  expect(new Set(await picks.ids())).toEqual(new Set(expected.map((p) => p.id))); // the same rows, reordered
  await odds.getByRole('button').click();
  await expect(odds).toHaveAttribute('aria-sort', 'descending');
  sortedWithEmptiesLast(await oddsValues(), -1);
  await odds.getByRole('button').click();
  await expect(odds).toHaveAttribute('aria-sort', 'none');
  expect(await picks.ids()).toEqual(expected.map((p) => p.id)); // the API's order again
});

test('columns chosen are remembered by this browser; the event, its logos and attribution stay', async ({ page }) => {
  await signIn(page, 'viewer');
  const picks = new RecordsPage(page, '/picks');
  await picks.open('sport=Football&limit=10');
  await page.getByText('Columns', { exact: true }).click();
  await page.getByRole('checkbox', { name: 'Tier' }).uncheck();
  await expect(picks.table.locator('th', { hasText: 'Tier' })).toHaveCount(0);
  await picks.open('sport=Football&limit=10');
  await expect(picks.table.locator('th', { hasText: 'Tier' })).toHaveCount(0);
  await expect(picks.table.locator('th', { hasText: 'Odds' })).toHaveCount(1);
  await expect(picks.rows.first().locator('[data-attribution]')).toHaveAttribute('data-attribution', /\S/);
  await expect(picks.rows.first().getByRole('link', { name: /Details/ })).toBeVisible();
  await page.getByText('Columns', { exact: true }).click();
  await page.getByRole('checkbox', { name: 'Tier' }).check();
  await expect(picks.table.locator('th', { hasText: 'Tier' })).toHaveCount(1);
});

test('a logo that fails to load gives way to the initials under it', async ({ page }) => {
  await signIn(page, 'viewer');
  await page.route('**/logos/teams/**', (route) => route.fulfill({ status: 404, body: '' }));
  const picks = new RecordsPage(page, '/picks');
  await picks.open('sport=Football&limit=10');
  const logo = picks.rows.first().locator('img[data-logo]').nth(1); // the home team's
  await expect(logo).toBeHidden();
  const badge = logo.locator('xpath=..');
  await expect(badge).toBeVisible();
  await expect(badge).toHaveText(/^[A-Z0-9?]{1,2}$/);
});
