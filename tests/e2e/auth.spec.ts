import { encode } from 'next-auth/jwt';
import { expect, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { sessionCookie, sessionToken } from '../support/session';

/** Sessions over plain HTTP: CSRF on sign-in and sign-out, sign-out ends the session, expired and forged tokens refused. */

const portal = `http://127.0.0.1:${E2E.port}`;
const secondary = `http://127.0.0.1:${E2E.suspendedPort}`; // started with the known e2e AUTH_SECRET

const get = (origin: string, path: string, cookie: string) => fetch(`${origin}${path}`, { headers: { cookie }, redirect: 'manual' });
const signedIn = async (origin: string, cookie: string) =>
  (await get(origin, '/api/auth/session', cookie)).json().then((s) => Boolean(s?.user?.role));

async function csrf(origin: string, cookie: string): Promise<{ token: string; cookie: string }> {
  const res = await fetch(`${origin}/api/auth/csrf`, { headers: { cookie } });
  const fresh = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { token: ((await res.json()) as { csrfToken: string }).csrfToken, cookie: [cookie, fresh].filter(Boolean).join('; ') };
}

test('sign-out ends the session: the old cookie is refused afterwards', async () => {
  const cookie = await sessionCookie(portal, 'editor');
  expect(await signedIn(portal, cookie)).toBe(true);
  expect((await get(portal, '/api/export/picks?format=csv&sport=Cricket', cookie)).status).toBe(200);

  const { token, cookie: withCsrf } = await csrf(portal, cookie);
  const out = await fetch(`${portal}/api/auth/signout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie: withCsrf, origin: portal },
    body: new URLSearchParams({ csrfToken: token, json: 'true' }),
  });
  expect(out.status).toBeLessThan(400);
  expect(out.headers.getSetCookie().some((c) => /portal\.session=;/.test(c) || /portal\.session=.*Max-Age=0/i.test(c))).toBe(true);

  // Replaying the cookie the browser was told to forget:
  expect(await signedIn(portal, cookie)).toBe(false);
  expect((await get(portal, '/api/export/picks?format=csv', cookie)).status).toBe(401);
  const page = await get(portal, '/licence', cookie);
  expect(page.status).toBe(307);
  expect(page.headers.get('location')).toContain('/login');
});

test('sign-in without the CSRF token sets no session', async () => {
  const res = await fetch(`${portal}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', origin: portal },
    body: new URLSearchParams({ email: 'admin@demo.picks.test', password: 'demo-admin-pass', json: 'true' }),
  });
  expect(res.headers.getSetCookie().some((c) => c.includes('portal.session='))).toBe(false);
});

test('sign-out without the CSRF token leaves the session alone', async () => {
  const cookie = await sessionCookie(portal, 'viewer');
  await fetch(`${portal}/api/auth/signout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie, origin: portal },
    body: 'json=true',
  });
  expect(await signedIn(portal, cookie)).toBe(true);
});

test('an expired session token is refused', async () => {
  const expired = await sessionToken({}, -60);
  const cookie = `portal.session=${expired}`;
  expect(await signedIn(secondary, cookie)).toBe(false);
  expect((await get(secondary, '/api/export/picks?format=csv', cookie)).status).toBe(401);
  expect((await get(secondary, '/licence', cookie)).status).toBe(307);
  // The same token, still valid, is accepted: the refusal above is about expiry.
  const valid = await sessionToken({}, 600);
  expect(await signedIn(secondary, `portal.session=${valid}`)).toBe(true);
});

test('a token made with another secret, or with a role that does not exist, is refused', async () => {
  const forged = await encode({
    token: { email: 'x@evil.example', role: 'admin' },
    secret: 'not-the-portal-secret-000000000000000',
    maxAge: 600,
  });
  expect(await signedIn(secondary, `portal.session=${forged}`)).toBe(false);
  const bogusRole = await sessionToken({ role: 'superuser', provider: 'oidc' }, 600);
  expect(await signedIn(secondary, `portal.session=${bogusRole}`)).toBe(false);
  expect((await get(secondary, '/api/export/picks?format=csv', `portal.session=${bogusRole}`)).status).toBe(401);
});
