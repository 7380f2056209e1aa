import { expect, openAccount, signIn, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { sessionCookie } from '../support/session';
import { recordsTable } from '../support/pages/records-page';

/**
 * Time zone, theme and table density are each person's: chosen in one browser, they follow the person to
 * another; the next person to sign in on a browser gets theirs, not the last person's.
 */

const portal = `http://localhost:${E2E.port}`;
type Answer = { preferences: Record<string, unknown> };

test('a person’s time zone, theme and density follow them to another browser, and the next person on a browser gets their own', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const first = await browser.newContext();
  const a = await first.newPage();
  await signIn(a, 'manager', '/picks?limit=10');
  await openAccount(a);
  await Promise.all([a.waitForEvent('load'), a.getByLabel('Time zone').selectOption('Asia/Tokyo')]); // saved, then reloaded
  await openAccount(a);
  await a.getByLabel('Theme').selectOption('dark');
  await a.keyboard.press('Escape'); // the account menu closes
  await a.getByText('Columns', { exact: true }).click();
  await a.getByLabel('Comfortable rows').check();
  await expect
    .poll(async () => ((await (await a.request.get('/api/preferences')).json()) as Answer).preferences)
    .toEqual({ timeZone: 'Asia/Tokyo', theme: 'dark', density: 'comfortable' });

  // A second browser: after the sign-in, the person's choices, not this browser's defaults.
  const second = await browser.newContext();
  const b = await second.newPage();
  await signIn(b, 'manager', '/picks?limit=10');
  await expect(b.locator('html')).toHaveAttribute('data-theme', 'dark');
  await openAccount(b);
  await expect(b.getByLabel('Time zone')).toHaveValue('Asia/Tokyo');
  await expect(recordsTable(b)).toHaveAttribute('data-density', 'comfortable');
  // The rows' times are shown once the page's table has its rows (it may still be streaming in).
  await expect(b.locator('main time[datetime]:not([data-day])').first()).toContainText(/GMT\+9|JST/);
  const times = await b.locator('main time[datetime]:not([data-day])').allInnerTexts();
  expect(times.length).toBeGreaterThan(0);
  expect(times.filter((text) => !/GMT\+9|JST/.test(text))).toEqual([]);

  // The next person on that browser: their own (none chosen), not the manager's.
  await openAccount(b);
  await b.getByRole('button', { name: 'Sign out' }).click();
  await b.waitForURL(/\/login/);
  await signIn(b, 'viewer', '/picks?limit=10');
  await openAccount(b);
  await expect(b.getByLabel('Time zone')).toHaveValue('');
  await expect(b.locator('html')).not.toHaveAttribute('data-theme', 'dark');
  await expect(recordsTable(b)).toHaveAttribute('data-density', 'compact');

  // Back to the defaults for the manager, for the tests after this one.
  const reset = await a.request.put('/api/preferences', {
    data: { timeZone: null, theme: 'system', density: 'compact' },
    headers: { origin: portal },
  });
  expect(reset.status()).toBe(200);
  await first.close();
  await second.close();
});

test('PUT /api/preferences names every wrong field at once, and refuses another site, a large body and anyone signed out', async () => {
  const cookie = await sessionCookie(portal, 'viewer');
  const put = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${portal}/api/preferences`, {
      method: 'PUT',
      headers: { cookie, origin: portal, 'content-type': 'application/json', ...headers },
      body,
    });
  const read = async () => ((await (await fetch(`${portal}/api/preferences`, { headers: { cookie } })).json()) as Answer).preferences;
  const before = await read();
  const bad = await put(JSON.stringify({ timeZone: 'Mars/Olympus', theme: 'neon', density: 'tight' }));
  expect(bad.status).toBe(400);
  const { error } = (await bad.json()) as { error: { code: string; details: Record<string, string> } };
  expect(error.code).toBe('INVALID_PREFERENCES');
  expect(Object.keys(error.details).sort()).toEqual(['density', 'theme', 'timeZone']);
  expect((await put(JSON.stringify({ theme: 'dark' }), { origin: 'https://evil.example' })).status).toBe(403);
  expect((await put(JSON.stringify({ timeZone: 'x'.repeat(4000) }))).status).toBe(413);
  expect((await fetch(`${portal}/api/preferences`)).status).toBe(401);
  // Nothing of the refused requests was kept.
  expect(await read()).toEqual(before);
});
