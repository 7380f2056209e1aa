import type { Browser, Page } from '@playwright/test';
import { startOp, type TestOp } from '../support/oidc-op';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance } from '../support/instances';
import { startStaffPortal } from '../support/staff-portal';
import { LoginPage } from '../support/pages';
import { RecordsPage } from '../support/pages/records-page';

/**
 * Single sign-on end to end in Chromium, against a real OpenID provider started here on loopback: PKCE,
 * an unverified email refused, roles only through OIDC_ROLE_MAP, allowed domains, and a person an admin
 * disables losing their open session (and the next sign-on).
 */

const PORT = 3221;
const origin = `http://localhost:${PORT}`;
const ACCOUNTS = {
  ed: { email: 'ed@partner.example', email_verified: true, name: 'Ed Itor', roles: ['portal-editors'] },
  boss: { email: 'boss@partner.example', email_verified: true, name: 'Boss', roles: ['portal-editors', 'portal-admins'] },
  unverified: { email: 'un@partner.example', email_verified: false, name: 'Un Verified', roles: ['portal-editors'] },
  outsider: { email: 'out@elsewhere.example', email_verified: true, name: 'Out Sider', roles: ['portal-editors'] },
  named: { email: 'named@partner.example', email_verified: true, name: 'Named Admin', roles: ['admin'] },
  silent: { email: 'silent@partner.example', name: 'Says Nothing', roles: ['portal-editors'] },
  // Another identity of the provider with ed's email: the account is bound to ed's subject, not to the address.
  impostor: { email: 'ed@partner.example', email_verified: true, name: 'Not Ed', roles: ['portal-admins'] },
};

let op: TestOp;
let portal: Instance;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  op = await startOp(origin, ACCOUNTS);
  portal = await startStaffPortal(PORT, {
    label: 'oidc',
    roles: ['admin'],
    env: {
      ...upstreamEnv(`http://127.0.0.1:${E2E.sandboxPort}`, E2E.sandboxKey),
      AUTH_SECRET: 'oidc-spec-secret-0123456789-abcdefghij',
      CHANGES_POLL_SECONDS: '0',
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: op.clientId,
      OIDC_CLIENT_SECRET: op.clientSecret,
      OIDC_ROLE_MAP: 'portal-editors=editor,portal-admins=admin',
      OIDC_ALLOWED_DOMAINS: 'partner.example',
      OIDC_NAME: 'Partner SSO',
    },
  });
});
test.afterAll(async () => {
  await portal?.stop();
  await op?.close();
});

/** Signs on as `login` in a fresh browser context; returns its page where the portal left it. */
async function signOn(browser: Browser, login: keyof typeof ACCOUNTS): Promise<Page> {
  const context = await browser.newContext({ baseURL: origin });
  const page = await context.newPage();
  await new LoginPage(page).visit();
  await page.getByRole('button', { name: 'Continue with Partner SSO' }).click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.origin === origin && url.pathname !== '/api/auth/callback/oidc');
  return page;
}

const sessionOf = async (page: Page) => (await page.request.get('/api/auth/session')).json();

test.describe.serial('single sign-on against a real OpenID provider', () => {
  test('PKCE (S256) is used, and a mapped group gives its role; the strongest wins', async ({ browser }) => {
    const page = await signOn(browser, 'ed');
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await sessionOf(page)).toMatchObject({ user: { email: 'ed@partner.example', role: 'editor' } });
    const [authorization] = op.authorizations;
    expect(authorization).toMatchObject({ client_id: op.clientId, code_challenge_method: 'S256', response_type: 'code' });
    expect(authorization!.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorization!.nonce).toMatch(/^\S{20,}$/); // the ID token must carry it back
    const boss = await signOn(browser, 'boss');
    expect(await sessionOf(boss)).toMatchObject({ user: { email: 'boss@partner.example', role: 'admin' } });
    await page.context().close();
    await boss.context().close();
  });

  test('refused, each saying why: an unverified or unstated email, another identity with a bound email, a domain not allowed, a group merely named like a role', async ({
    browser,
  }) => {
    const refusals = {
      unverified: 'Your email address is not verified by your identity provider.',
      silent: 'Your email address is not verified by your identity provider.',
      impostor: 'This email address belongs to another single sign-on identity. Ask an administrator.',
      outsider: 'Your email domain may not use this portal.',
      named: 'Your account has no portal role. Ask an administrator.',
    } as const;
    for (const [login, message] of Object.entries(refusals)) {
      const page = await signOn(browser, login as keyof typeof refusals);
      expect(new URL(page.url()).pathname, login).toBe('/login');
      await expect(page.getByText(message), login).toBeVisible();
      expect(await sessionOf(page), login).toEqual({});
      await page.context().close();
    }
  });

  test('an admin disables a single sign-on person: their open session ends within seconds, and so does the next sign-on', async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const ed = await signOn(browser, 'ed');
    expect(await sessionOf(ed)).toMatchObject({ user: { role: 'editor' } });
    const adminContext = await browser.newContext({ baseURL: origin });
    const admin = await adminContext.newPage();
    await new LoginPage(admin).visit('callbackUrl=/admin/users');
    await admin.getByLabel('Email').fill(STAFF.admin.email);
    await admin.getByLabel('Password').fill(STAFF.admin.password);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.waitForURL((url) => url.pathname === '/admin/users');
    const form = admin.getByRole('form', { name: 'Change ed@partner.example' });
    // No password to reset: said so, and nothing changes.
    await form.getByRole('button', { name: 'Reset password' }).click();
    await expect(form.getByTestId('admin-result')).toContainText('signs in with single sign-on and has no password');
    await form.getByRole('button', { name: 'Disable' }).click();
    await expect(admin.locator('tr[data-user="ed@partner.example"] [data-cell="status"]')).toHaveText('disabled');
    await waitUntil(async () => JSON.stringify(await sessionOf(ed)) === '{}', 'the disabled session to end', 15_000);
    await new RecordsPage(ed, '/picks').visit();
    expect(new URL(ed.url()).pathname).toBe('/login');
    const again = await signOn(browser, 'ed');
    expect(new URL(again.url()).pathname).toBe('/login');
    await expect(again.getByText('An administrator disabled your portal account.')).toBeVisible();
    expect(await sessionOf(again)).toEqual({});
    for (const page of [ed, again, admin]) await page.context().close();
  });
});
