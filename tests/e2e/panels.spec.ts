import { expect, signIn, test } from '../support/fixtures';
import { recordsTable } from '../support/pages/records-page';

/**
 * The frame's panels over the page: the sidebar folds to icons (remembered per person); on a phone the navigation
 * is a drawer and the filters a sheet, each held like a modal dialog while open (the rest of the page inert,
 * Tab kept inside, Escape or closing gives focus back to what opened it).
 */

test('the sidebar folds to icons and stays so for the person; on a phone the menu is a drawer held like a modal, which Escape closes', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, 'editor', '/licence'); // preferences.spec reads the manager's exact choices
  const nav = page.getByRole('navigation', { name: 'Main' });
  const width = () => nav.evaluate((el) => Math.round(el.getBoundingClientRect().width));
  const wide = await width();
  await page.getByRole('button', { name: 'Icons only' }).click();
  await expect.poll(width).toBeLessThan(80);
  await page.reload();
  expect(await width()).toBeLessThan(80); // drawn narrow by the server: nothing jumps
  await expect(nav.getByRole('link', { name: 'Deliveries' })).toHaveAttribute('title', 'Deliveries');
  await page.getByRole('button', { name: 'Icons only' }).click();
  await expect.poll(width).toBe(wide);

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(nav).toBeHidden();
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  await menu.click();
  await expect(nav).toBeVisible();
  await expect(nav.getByRole('link').first()).toBeFocused();
  // Held like a modal: Tab goes round the drawer's own controls (and the browser's own, past the last), never the
  // page behind, which is inert.
  const stops = (await nav.getByRole('link').count()) + 1; // the links and "Close the menu"
  const where = () =>
    nav.evaluate((el) => (el.contains(document.activeElement) ? 'drawer' : document.activeElement === document.body ? 'browser' : 'page'));
  const visited: string[] = [];
  for (let i = 0; i < stops + 2; i += 1) {
    await page.keyboard.press('Tab');
    visited.push(await where());
  }
  expect(visited).not.toContain('page');
  expect(visited.at(-1)).toBe('drawer'); // round again
  expect(await page.locator('#main').evaluate((el) => (el as HTMLElement).inert)).toBe(true);
  expect(await menu.evaluate((el) => (el.closest('header') as HTMLElement).inert)).toBe(true);
  await page.keyboard.press('Escape');
  await expect(nav).toBeHidden();
  await expect(menu).toBeFocused();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect.poll(() => page.locator('#main').evaluate((el) => (el as HTMLElement).inert)).toBe(false);
  // Its close button gives focus back too; widening the window past the drawer closes it and frees the page.
  await menu.click();
  await nav.getByRole('button', { name: 'Close the menu' }).click();
  await expect(menu).toBeFocused();
  await menu.click();
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(menu).toBeHidden(); // CSS hides it at once; the drawer closes on the media query's change event
  await expect.poll(() => page.locator('#main').evaluate((el) => (el as HTMLElement).inert)).toBe(false);
});

test('on a phone the filters fold behind "Filters (n)" into a sheet held like a modal, the set ones are chips, and a chip takes its filter away', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, 'viewer', '/picks?sport=Football&status=settled&limit=25');
  await expect(page.getByRole('search')).toBeHidden();
  const chips = page.getByTestId('filter-chips');
  await expect(chips.getByRole('button')).toHaveText('Filters (2)');
  await expect(chips.getByRole('link')).toHaveText(['Sport: Football', 'Status: settled']);
  await expect(recordsTable(page).locator('tbody tr').first()).toBeInViewport();
  await chips.getByRole('link', { name: 'Sport: Football, remove' }).click();
  await page.waitForURL((url) => !url.search.includes('sport='));
  expect(new URL(page.url()).search).toBe('?status=settled&limit=25');
  await page.getByTestId('filter-chips').getByRole('button').click();
  const sheet = page.getByRole('dialog', { name: 'Filters' });
  // Held like a modal: focus inside, Tab stays inside, Escape gives focus back to "Filters (n)".
  await expect(sheet.getByRole('button', { name: 'Close' })).toBeFocused();
  for (let i = 0; i < 12; i += 1) {
    await page.keyboard.press('Tab');
    expect(await sheet.evaluate((el) => el.contains(document.activeElement) || document.activeElement === document.body)).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(sheet).toHaveCount(0);
  await expect(page.getByTestId('filter-chips').getByRole('button')).toBeFocused();
  await page.getByTestId('filter-chips').getByRole('button').click();
  await expect(sheet.getByLabel('Status', { exact: true })).toHaveValue('settled');
  await sheet.getByLabel('Sport', { exact: true }).selectOption('Tennis');
  await sheet.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(/sport=Tennis/);
  await expect(page.getByTestId('filter-chips').getByRole('link')).toHaveText(['Sport: Tennis', 'Status: settled']);
});
