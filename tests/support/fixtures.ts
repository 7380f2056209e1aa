import { test as base, expect, type Cookie, type Page } from '@playwright/test';
import { E2E } from './ports';
import { watchAnswers } from './described';

export const USERS = {
  viewer: { email: 'viewer@demo.picks.test', password: 'demo-viewer-pass' },
  editor: { email: 'editor@demo.picks.test', password: 'demo-editor-pass' },
  manager: { email: 'manager@demo.picks.test', password: 'demo-manager-pass' },
  admin: { email: 'admin@demo.picks.test', password: 'demo-admin-pass' },
} as const;

export type RoleName = keyof typeof USERS;
export const ROLES = Object.keys(USERS) as RoleName[];

/** Ordinary accounts of the portals whose upstream is configured by address (demo accounts are refused there). */
export const STAFF: Record<RoleName, { email: string; password: string }> = {
  viewer: { email: 'viewer@staff.picks.test', password: 'staff-viewer-pass' },
  editor: { email: 'editor@staff.picks.test', password: 'staff-editor-pass' },
  manager: { email: 'manager@staff.picks.test', password: 'staff-manager-pass' },
  admin: { email: 'admin@staff.picks.test', password: 'staff-admin-pass' },
};

/** The sign-in of a role on one of the e2e portals: demo accounts on the main (sandbox) portal, staff elsewhere. */
export function credentials(role: RoleName, origin: string) {
  return new URL(origin).port === String(E2E.port) ? USERS[role] : STAFF[role];
}

/** Signs in through the real form; `origin` picks one of the e2e portals (default: the main one). */
export async function signIn(page: Page, role: RoleName, next = '/', origin = `http://localhost:${E2E.port}`) {
  await page.goto(`${origin}/login?callbackUrl=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(credentials(role, origin).email);
  await page.getByLabel('Password').fill(credentials(role, origin).password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  await preferencesSynced(page, origin);
  const session = (await page.context().cookies(origin)).filter((cookie) => cookie.name.endsWith('portal.session'));
  if (session.length > 0) kept.set(`${role} ${origin}`, session);
}

/** Session cookies of this worker's sign-ins through the form, by role and portal (signInKept). */
const kept = new Map<string, Cookie[]>();

/**
 * Signs in with the session cookie of this worker's last sign-in of the role on that portal, when it is still
 * good (else through the form): for the specs that only read pages, where the form's two seconds a test added
 * up to minutes. Only the session is reused; the browser fetches the person's preferences as after any sign-in.
 * Specs that look at the sign-in itself (audit, limits, preferences, sessions) use signIn.
 */
export async function signInKept(page: Page, role: RoleName, next = '/', origin = `http://localhost:${E2E.port}`) {
  const key = `${role} ${origin}`;
  const session = kept.get(key);
  if (session && (await page.context().cookies(origin)).length === 0) {
    await page.context().addCookies(session);
    await page.goto(`${origin}${next}`);
    if (!new URL(page.url()).pathname.startsWith('/login')) return preferencesSynced(page, origin);
    kept.delete(key); // ended meanwhile (signed out everywhere, disabled, expired)
    await page.context().clearCookies();
  }
  await signIn(page, role, next, origin);
}

/**
 * The first page after a sign-in brings the browser's preferences up to date and may reload once
 * (components/preferences.ts): the test's next navigation must not be cut short by that reload. That reload's
 * requests are what 'networkidle' waits out; a page that refreshes itself while work runs (/alerts, /changes)
 * may never fall quiet on a busy machine, so it waits at most 15 s, then for the page to be settled.
 */
async function preferencesSynced(page: Page, origin: string) {
  const until = Date.now() + 5_000;
  while (Date.now() < until && !(await page.context().cookies(origin)).some((cookie) => cookie.name === 'prefs-of'))
    await page.waitForTimeout(50);
  await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
  await settled(page);
}

/**
 * Waits until a signed-in page that was just opened is finished: loaded, its streamed parts in place, hydrated, and
 * its times and logos done (<AfterLoad> marks `<html data-ready>`). Streamed parts: React reveals a Suspense
 * boundary's content up to 300 ms after it arrived (batched reveals), so after 'load' it may still wait in a
 * hidden `<div id="S:n">` outside <main>. Not 'networkidle': /changes and /alerts ask the server again every 2 s
 * while work runs, and on a busy machine that leaves no quiet 500 ms to wait for.
 */
export async function settled(page: Page) {
  await page.waitForLoadState('load');
  await page.waitForFunction(() => !document.querySelector('div[hidden][id^="S:"]'));
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
}

/** Opens the header's account menu (the person, their role, time zone, theme, sign-out), if it is not open. */
export async function openAccount(page: Page) {
  const button = page.getByRole('button', { name: /^Account:/ });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
}

/** The sandbox's API directly, for the expected values of a test (never through the portal). */
export async function sandboxApi<T>(path: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${E2E.sandboxPort}/api/v1${path}`, { headers: { Authorization: `Bearer ${E2E.sandboxKey}` } });
  if (!res.ok) throw new Error(`sandbox ${path}: ${res.status}`);
  return (await res.json()) as T;
}

/**
 * Screenshots for people to look at (ignored by git), taken when E2E_SCREENSHOTS=1: nothing checks them, and a
 * full-page capture costs the browser a second of CPU the suite shares (`npm run screens` takes the committed ones).
 */
export async function snapshot(page: Page, name: string) {
  if (process.env.E2E_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: `tests/e2e/__screenshots__/${name}.png`, fullPage: true });
}

export const test = base.extend<{ consoleErrors: string[]; describedAnswers: void }>({
  // Every page error or console error fails the test that caused it.
  consoleErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) errors.push(message.text());
      });
      await use(errors);
      expect(errors, 'console and page errors').toEqual([]);
    },
    { auto: true },
  ],
  // Every answer a page gets from the portal's API is one its OpenAPI documents describe (status and body).
  describedAnswers: [
    async ({ page }, use) => {
      const problems = watchAnswers(page);
      await use();
      expect(await problems(), 'answers the OpenAPI documents do not describe').toEqual([]);
    },
    { auto: true },
  ],
});
export { expect };
