import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decode } from 'next-auth/jwt';
import { OPEN_REDIRECT_VARIANTS } from '../support/redirect-variants';
import { expect, STAFF, test, USERS } from '../support/fixtures';
import { E2E } from '../support/ports';
import { E2E_SECRET, hasSession, jsonSignIn, sessionCookie, sessionToken, signOut, withSetCookies } from '../support/session';
import { LoginPage } from '../support/pages';

/** Issue 11: sessions end for real, accounts are re-read, callbacks stay inside the portal, demo accounts stay on the sandbox. */

const portal = `http://127.0.0.1:${E2E.port}`;
const portalOrigin = `http://localhost:${E2E.port}`; // NEXTAUTH_URL of the main portal
const secondary = `http://127.0.0.1:${E2E.suspendedPort}`; // a "real" upstream: staff accounts, the known secret
const run = promisify(execFile);

/** `npm run users` on the main portal's users file, while the portal runs. */
async function users(args: string[], password?: string) {
  const child = run('npm', ['run', '-s', 'users', '--', ...args], {
    env: { ...process.env, DATABASE_URL: '', PORTAL_DATA_DIR: E2E.dataDir(E2E.port) },
  });
  child.child.stdin?.end(password ? `${password}\n` : '');
  return (await child).stdout;
}

/** Polls until `check` holds, and says how long it took; fails after `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return Date.now() - started;
}

const exportStatus = async (origin: string, cookie: string) => {
  const res = await fetch(`${origin}/api/export/picks?format=csv&sport=Cricket&status=settled`, { headers: { cookie } });
  await res.body?.cancel();
  return res.status;
};

test('a cookie refreshed through /api/auth/session dies with the session it came from', async () => {
  const original = await sessionCookie(portal, 'editor');
  const refreshed = withSetCookies(original, await fetch(`${portal}/api/auth/session`, { headers: { cookie: original } }));
  expect(refreshed).not.toBe(original); // next-auth re-encoded it: a new jti, the same session
  expect(await hasSession(portal, refreshed)).toBe(true);

  expect((await signOut(portal, original)).status).toBeLessThan(400);
  expect(await hasSession(portal, original)).toBe(false);
  expect(await hasSession(portal, refreshed)).toBe(false);
  expect(await exportStatus(portal, refreshed)).toBe(401);
  // Refreshing the refused cookie again does not bring it back.
  const again = withSetCookies(refreshed, await fetch(`${portal}/api/auth/session`, { headers: { cookie: refreshed } }));
  expect(await hasSession(portal, again)).toBe(false);
});

test('refreshing never extends a session: its expiry stays SESSION_MAX_HOURS after sign-in', async () => {
  const cookie = await sessionCookie(secondary, 'viewer');
  const token = (value: string) => decode({ token: /portal\.session=([^;]+)/.exec(value)![1], secret: E2E_SECRET });
  const first = await token(cookie);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const refreshed = withSetCookies(cookie, await fetch(`${secondary}/api/auth/session`, { headers: { cookie } }));
  const second = await token(refreshed);
  expect(second?.sid).toBe(first?.sid);
  expect(second?.jti).not.toBe(first?.jti);
  expect(second?.exp).toBe(first?.exp);
  expect(first!.exp).toBe((first!.signedInAt as number) + 8 * 3600);
});

test('a session older than SESSION_MAX_HOURS is refused even when its token has not expired', async () => {
  const hoursAgo = (h: number) => Math.floor(Date.now() / 1000) - h * 3600;
  expect(await hasSession(secondary, `portal.session=${await sessionToken({ signedInAt: hoursAgo(7.9) }, 600)}`)).toBe(true);
  const old = `portal.session=${await sessionToken({ signedInAt: hoursAgo(8.1) }, 600)}`;
  expect(await hasSession(secondary, old)).toBe(false);
  expect((await fetch(`${secondary}/licence`, { headers: { cookie: old }, redirect: 'manual' })).status).toBe(307);
  // A token without a session identity (as next-auth made them before) is no session either.
  const legacy = `portal.session=${await sessionToken({ sid: undefined, signedInAt: undefined }, 600)}`;
  expect(await hasSession(secondary, legacy)).toBe(false);
});

test('npm run users while the portal runs: a role change, disabling and removal end open sessions within 60 s', async () => {
  test.setTimeout(240_000);
  const stamp = Date.now();
  const [demoted, disabled] = [`demoted-${stamp}@example.com`, `disabled-${stamp}@example.com`];
  await users(['add', demoted, '--role', 'editor'], 'a long password 1');
  await users(['add', disabled, '--role', 'editor'], 'a long password 2');
  // A user added while the portal runs signs in at once.
  const one = await jsonSignIn(portal, demoted, 'a long password 1');
  const two = await jsonSignIn(portal, disabled, 'a long password 2');
  expect([one.signedIn, two.signedIn]).toEqual([true, true]);
  expect([await exportStatus(portal, one.cookie), await exportStatus(portal, two.cookie)]).toEqual([200, 200]);

  await users(['role', demoted, '--role', 'viewer']);
  await users(['disable', disabled]);
  // A role change ends the session (a new session epoch): the person signs in again, with the new role.
  const demotion = await within(60_000, async () => !(await hasSession(portal, one.cookie)));
  const disabling = await within(60_000, async () => !(await hasSession(portal, two.cookie)));
  expect(await exportStatus(portal, one.cookie)).toBe(401);
  expect((await jsonSignIn(portal, disabled, 'a long password 2')).signedIn).toBe(false);
  const again = await jsonSignIn(portal, demoted, 'a long password 1');
  expect(await exportStatus(portal, again.cookie)).toBe(403); // a viewer now

  await users(['remove', demoted]);
  const removal = await within(60_000, async () => !(await hasSession(portal, again.cookie)));
  expect(await exportStatus(portal, again.cookie)).toBe(401);
  console.log(`[security] demotion took effect in ${demotion} ms, disabling in ${disabling} ms, removal in ${removal} ms`);
  await users(['remove', disabled]);
});

test('a worthless session cookie on a page goes to /login and back to the whole address; a client cannot choose it', async () => {
  // The request policy (lib/http/request-policy.ts) only looks for the cookie; the page decrypts and judges it, and its redirect keeps the query.
  const ended = await sessionCookie(portal, 'viewer');
  expect((await signOut(portal, ended)).status).toBeLessThan(400);
  const asked = '/picks?sport=Cricket&status=settled';
  for (const cookie of ['portal.session=not-a-token', 'portal.session.0=abc; portal.session.1=def', ended]) {
    const res = await fetch(`${portal}${asked}`, {
      headers: { cookie, 'x-portal-return': '//evil.example/steal' },
      redirect: 'manual',
    });
    expect(res.status, cookie).toBe(307);
    const location = new URL(res.headers.get('location') ?? '', portal);
    expect(location.pathname, cookie).toBe('/login');
    expect(location.searchParams.get('callbackUrl'), cookie).toBe(asked);
  }
  // Every page, not only the lists: none renders for a cookie that is there but worth nothing.
  for (const path of ['/licence', '/coverage', '/changes?kind=new', '/exports', '/deliveries', '/admin/users', '/admin/audit']) {
    const res = await fetch(`${portal}${path}`, { headers: { cookie: 'portal.session=not-a-token' }, redirect: 'manual' });
    expect(res.status, path).toBe(307);
    expect(new URL(res.headers.get('location') ?? '', portal).searchParams.get('callbackUrl'), path).toBe(path);
  }
  const home = await fetch(`${portal}/`, { headers: { cookie: 'portal.session=not-a-token' }, redirect: 'manual' });
  expect(home.headers.get('location')).toMatch(/\/login$/);
  // Without any cookie the request policy answers itself, the same way.
  const bare = await fetch(`${portal}${asked}`, { redirect: 'manual' });
  expect(new URL(bare.headers.get('location') ?? '', portal).searchParams.get('callbackUrl')).toBe(asked);
});

test.describe('callback URLs stay inside the portal', () => {
  test(`the JSON sign-in sends every one of ${OPEN_REDIRECT_VARIANTS.length} hostile callbacks home`, async () => {
    for (const variant of OPEN_REDIRECT_VARIANTS) {
      const { url, signedIn } = await jsonSignIn(portal, USERS.viewer.email, USERS.viewer.password, variant);
      expect(signedIn, variant).toBe(true);
      expect(new URL(url).origin, variant).toBe(portalOrigin);
      expect(new URL(url).pathname.startsWith('//'), variant).toBe(false);
    }
  });

  test('/login visited while signed in redirects only inside the portal', async () => {
    const cookie = await sessionCookie(portal, 'viewer');
    for (const variant of OPEN_REDIRECT_VARIANTS) {
      const res = await fetch(`${portal}/login?callbackUrl=${encodeURIComponent(variant)}`, { headers: { cookie }, redirect: 'manual' });
      expect(res.status, variant).toBe(307);
      const location = res.headers.get('location') ?? '';
      expect(new URL(location, portal).host, variant).toBe(new URL(portal).host);
      expect(location.startsWith('//') || new URL(location, portal).pathname.startsWith('//'), variant).toBe(false);
    }
  });

  test('the login form in Chromium lands inside the portal for each of them', async ({ page, context }) => {
    test.setTimeout(180_000);
    for (const variant of OPEN_REDIRECT_VARIANTS) {
      await context.clearCookies();
      await new LoginPage(page).visit(`callbackUrl=${encodeURIComponent(variant)}`);
      await page.getByLabel('Email').fill(USERS.viewer.email);
      await page.getByLabel('Password').fill(USERS.viewer.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
      expect(new URL(page.url()).origin, variant).toBe(portalOrigin);
    }
  });
});

test('demo accounts are refused by a portal whose upstream is not the sandbox', async () => {
  const demo = await jsonSignIn(secondary, USERS.admin.email, USERS.admin.password);
  expect(demo.signedIn).toBe(false);
  expect(demo.error).toBe('Demo accounts work only with the sandbox upstream.');
  // A still-valid session of a demo account is refused too.
  expect(await hasSession(secondary, `portal.session=${await sessionToken({ email: USERS.admin.email }, 600)}`)).toBe(false);
  // The same portal lets its ordinary accounts in, and the sandbox portal its demo accounts.
  expect((await jsonSignIn(secondary, STAFF.admin.email, STAFF.admin.password)).signedIn).toBe(true);
  expect((await jsonSignIn(portal, USERS.admin.email, USERS.admin.password)).signedIn).toBe(true);
});
