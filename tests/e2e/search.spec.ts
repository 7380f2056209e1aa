import { expect, signInKept, test } from '../support/fixtures';
import { RecordsPage } from '../support/pages/records-page';

/**
 * Search and the whole set's order on /picks, from the portal's index of the licensed set (lib/records/search.ts),
 * on the main portal (its change feed fills the index): a team typed into the box finds its records from the end of
 * the set and every row shown has it; ordered by event date ascending, the set's earliest record comes first (the
 * upstream lists the latest first); Last goes to the page holding the set's last record; the page says how fresh
 * the index is.
 */

type Found = {
  data: { id: string; homeTeam: string | null; awayTeam: string | null; eventDate: string | null }[];
  total: number;
  lastPage: number;
};

async function found(page: import('@playwright/test').Page, query: string): Promise<Found> {
  const res = await page.request.get(`/api/records/search?kind=picks&${query}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as Found;
}

test('a team typed into the search finds its records from the end of the set; the whole set sorts by event date; Last reaches its end', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signInKept(page, 'viewer');
  // The index follows the feed's first poll within seconds of the start.
  await expect.poll(async () => (await found(page, 'sort=eventDate&dir=asc')).total, { timeout: 60_000 }).toBeGreaterThan(100);
  const whole = await found(page, 'sort=eventDate&dir=asc&limit=50');
  const last = await found(page, `sort=eventDate&dir=asc&limit=50&page=${whole.lastPage}`);
  const team = last.data.at(-1)!.homeTeam!;

  const picks = new RecordsPage(page, '/picks');
  // The live table states at once how many records the index holds for its filters (the whole set, any order).
  await picks.open('limit=50');
  await expect(page.getByTestId('index-total')).toHaveText(/^ · [\d,]+ in the index$/);
  const stated = Number((await page.getByTestId('index-total').innerText()).replace(/\D/g, ''));
  expect(Math.abs(stated - whole.total)).toBeLessThanOrEqual(whole.total * 0.05);
  // The order chosen stays with the search: the latest events first, so the set's last record is among the first found.
  await picks.open('sort=eventDate&dir=desc');
  await page.getByLabel('Search every record').fill(team.toUpperCase());
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page).toHaveURL(/[?&]q=/);
  await expect(page.getByTestId('index-freshness')).toContainText('From the portal’s index of the licensed set');
  const ids = await picks.ids();
  expect(ids).toContain(last.data.at(-1)!.id);
  // Every row shown holds every word typed (as a word or part of one, in any of the fields searched).
  const texts = await picks.rows.evaluateAll((rows) => rows.map((row) => (row.textContent ?? '').toLowerCase()));
  expect(texts.length).toBeGreaterThan(0);
  for (const text of texts) for (const word of team.toLowerCase().split(/\s+/)) expect(text).toContain(word);
  // The words typed are marked where they appear.
  await expect(picks.rows.first().locator('mark').first()).toHaveText(new RegExp(`^(${team.split(/\s+/).join('|')})$`, 'i'));

  // Ordered by event date ascending over the whole set: the earliest first, whatever page the upstream has it on.
  await picks.open('sort=eventDate&dir=asc&limit=50');
  expect((await picks.ids())[0]).toBe(whole.data[0]!.id);
  await expect(page.getByTestId('record-count')).toHaveText(`Records 1–50 of ${whole.total.toLocaleString('en-GB')}`);
  await page.getByTestId('index-pager-top').getByRole('link', { name: 'Last' }).click();
  await expect(page.getByTestId('index-page').first()).toHaveText(`Page ${whole.lastPage} of ${whole.lastPage}`);
  expect((await picks.ids()).at(-1)).toBe(last.data.at(-1)!.id);
});

test('a filter applies as it changes, without Apply, keeping the search; Back undoes it', async ({ page }) => {
  await signInKept(page, 'viewer');
  const picks = new RecordsPage(page, '/picks');
  await picks.open('sort=eventDate&dir=asc&limit=25');
  const before = page.url();
  // Each status says how many records of this set it holds (a facet, in the option); no Apply button on a wide screen.
  const status = picks.form.getByLabel('Status', { exact: true });
  const label = (await status.locator('option[value="settled"]').textContent()) ?? '';
  expect(label).toMatch(/^settled \([\d,]+\)$/);
  const holds = Number(label.replace(/\D/g, ''));
  expect(holds).toBeGreaterThan(0);
  await expect(picks.form.getByRole('button', { name: 'Apply' })).toBeHidden();
  await picks.form.getByLabel('Status', { exact: true }).selectOption('settled');
  await expect(page).toHaveURL(/[?&]status=settled/);
  await expect(page.getByTestId('record-count')).toContainText(`of ${holds.toLocaleString('en-GB')}`);
  await expect(page.getByTestId('filter-chips').getByRole('link', { name: 'Status: settled, remove' })).toBeVisible();
  await expect(page).toHaveURL(/[?&]sort=eventDate/);
  await expect(page.getByTestId('index-freshness')).toBeVisible();
  await expect.poll(async () => new Set(await picks.columnTexts('Status'))).toEqual(new Set(['settled']));
  await page.goBack();
  await expect(page).toHaveURL(before);
  await expect(picks.form.getByLabel('Status', { exact: true })).toHaveValue('');
});

test('the palette (Ctrl-K) finds a delivery, a token and a person by name for an admin; a viewer only what a viewer may see', async ({
  page,
  browser,
}) => {
  await signInKept(page, 'admin');
  const origin = new URL(page.url()).origin;
  const stamp = Date.now().toString(36);
  const post = (url: string, data: object) => page.request.post(url, { headers: { origin }, data });
  const delivery = await post('/api/deliveries', {
    name: `Heron nightly ${stamp}`,
    kind: 'picks',
    format: 'json',
    filters: {},
    schedule: '0 6 * * *',
    destination: { type: 'directory', folder: `heron-${stamp}` },
  });
  expect(delivery.status(), await delivery.text()).toBe(201);
  const token = await post('/api/tokens', {
    name: `Heron CMS ${stamp}`,
    scope: { content: ['picks'], sports: [], leagues: [] },
    expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    ratePerMinute: 60,
    dailyRecords: 1_000,
  });
  expect(token.status(), await token.text()).toBe(201);

  await page.keyboard.press('Control+K');
  const palette = page.getByTestId('palette');
  const box = palette.getByRole('combobox');
  await expect(box).toBeFocused();
  await box.fill(`heron ${stamp}`);
  await expect(palette.getByRole('option', { name: `Deliveries Heron nightly ${stamp}` })).toBeVisible();
  await expect(palette.getByRole('option', { name: new RegExp(`^Tokens Heron CMS ${stamp}`) })).toBeVisible();
  await box.fill('viewer@demo');
  await expect(palette.getByRole('option', { name: /^People viewer@demo\.picks\.test/ })).toBeVisible();
  await box.press('Enter');
  await expect(page).toHaveURL(/\/admin\/users#user-viewer%40demo\.picks\.test$/);
  await expect(palette).toBeHidden();
  await expect(page.locator('tr[data-user="viewer@demo.picks.test"]')).toHaveId('user-viewer%40demo.picks.test');

  const viewer = await (await browser.newContext()).newPage();
  await signInKept(viewer, 'viewer');
  await viewer.getByTestId('palette-button').click();
  const seen = viewer.getByTestId('palette');
  await seen.getByRole('combobox').fill(`heron ${stamp}`);
  await expect(seen.getByTestId('palette-status')).toHaveText(`Nothing you may open matches “heron ${stamp}”.`);
  await expect(seen.getByRole('option')).toHaveCount(0);
  await seen.getByRole('combobox').fill('viewer@demo');
  await expect(seen.getByTestId('palette-status')).toHaveText('Nothing you may open matches “viewer@demo”.');
  // Pages and actions of the viewer's role only: Picks, not Users or "New delivery".
  await seen.getByRole('combobox').fill('');
  await expect(seen.getByRole('option', { name: /^(Pages )?Picks Data$/ })).toBeVisible();
  await expect(seen.getByRole('option', { name: /Users|New delivery|Make a token/ })).toHaveCount(0);
  await viewer.context().close();
});
