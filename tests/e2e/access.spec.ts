import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { LoginPage } from '../support/pages';

/**
 * Every page and route handler in app/, found from the file tree so a new route cannot be forgotten,
 * refuses a signed-out request: pages redirect to /login, handlers answer 401 with the portal's JSON error (API v1,
 * which takes API tokens, with the spec's).
 * Public by design: /login and next-auth's own /api/auth/* endpoints.
 */

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

function toUrl(file: string): string {
  const segments = path
    .relative('app', path.dirname(file))
    .split(path.sep)
    .filter((s) => s && !/^\(.*\)$/.test(s));
  return `/${segments.map((s) => (s.startsWith('[') ? encodeURIComponent('pk:sample~1+2=') : s)).join('/')}`;
}

/**
 * The only handlers anyone may call signed out: for load balancers and supervisors, the keys that check signatures,
 * and API v1's OpenAPI document (it holds no data) — they say nothing private.
 */
const PUBLIC_HANDLERS = ['/api/health', '/api/health/live', '/api/health/ready', '/api/proof/keys', '/api/v1/openapi.json'];
const all = files('app');
const pages = all
  .filter((f) => path.basename(f) === 'page.tsx')
  .map(toUrl)
  .filter((url) => url !== '/login');
/** Each handler with the methods its file exports (GET, POST, …), each of which must refuse. */
const handlers = all
  .filter((f) => path.basename(f) === 'route.ts')
  .map((file) => ({
    url: toUrl(file),
    methods: [...readFileSync(file, 'utf8').matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!),
  }))
  .filter(({ url }) => !url.startsWith('/api/auth'))
  .filter(({ url }) => !PUBLIC_HANDLERS.includes(url));

test('the file tree has the pages we expect to guard', () => {
  expect(pages).toEqual(
    expect.arrayContaining(['/', '/licence', '/picks', '/results', '/coverage', `/picks/${encodeURIComponent('pk:sample~1+2=')}`]),
  );
});

for (const url of pages) {
  test(`page ${url} sends a signed-out visitor to /login`, async ({ request }) => {
    const res = await request.get(url, { maxRedirects: 0 });
    expect(res.status()).toBe(307);
    expect(new URL(res.headers().location!, 'http://x').pathname).toBe('/login');
    expect(res.headers()['cache-control']).toContain('no-store');
  });
}

test('every handler exports at least one method we check', () => {
  for (const handler of handlers) expect(handler.methods.length, handler.url).toBeGreaterThan(0);
});

for (const { url, methods } of handlers) {
  for (const method of methods) {
    test(`handler ${method} ${url} answers 401 to a signed-out request`, async ({ request }) => {
      // Signed out but from the portal itself (a state-changing request without the portal's Origin is refused before this).
      const res = await request.fetch(url, { method, maxRedirects: 0, headers: { origin: `http://localhost:${E2E.port}` } });
      expect(res.status()).toBe(401);
      // API v1 (for API tokens, never sessions) answers in the spec's own error body (docs/api-v1.md).
      const error = (await res.json()).error;
      if (url.startsWith('/api/v1/')) expect(error).toMatchObject({ code: 'UNAUTHORIZED', requestId: expect.stringMatching(/^req_/) });
      // The MCP server (API tokens too) answers as JSON-RPC says an error is (docs/mcp.md).
      else if (url === '/api/mcp') expect(error).toMatchObject({ code: -32000, data: { code: 'UNAUTHORIZED' } });
      else expect(error.code).toBe('UNAUTHENTICATED');
    });
  }
}

test('/api/health answers signed out with the store and upstream states only', async ({ request }) => {
  const res = await request.get('/api/health');
  expect(res.status()).toBe(200);
  expect(res.headers()['cache-control']).toContain('no-store');
  const text = await res.text();
  expect(JSON.parse(text)).toEqual({ status: 'ok', store: 'ok', upstream: 'ok' });
  expect(text).not.toMatch(/127\.0\.0\.1|sqlite|\.data|key/i);
});

test('liveness and readiness answer signed out, saying nothing private', async ({ request }) => {
  const live = await request.get('/api/health/live');
  expect(live.status()).toBe(200);
  expect(await live.json()).toEqual({ status: 'live' });
  const ready = await request.get('/api/health/ready');
  expect(ready.status()).toBe(200);
  expect(ready.headers()['cache-control']).toContain('no-store');
  expect(await ready.json()).toEqual({ status: 'ready', store: 'ok' });
});

test('security headers on pages', async ({ request }) => {
  const res = await request.get('/login');
  const headers = res.headers();
  expect(headers['cache-control']).toBe('private, no-store');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  const csp = headers['content-security-policy']!;
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
  for (const directive of ["object-src 'none'", "frame-ancestors 'none'", 'img-src ']) expect(csp).toContain(directive);
});

test('callbackUrl cannot send anyone off the portal', async ({ page }) => {
  for (const evil of ['https://evil.example', '//evil.example', '/\\evil.example']) {
    await new LoginPage(page).visit(`callbackUrl=${encodeURIComponent(evil)}`);
    await page.getByLabel('Email').fill('viewer@demo.picks.test');
    await page.getByLabel('Password').fill('demo-viewer-pass');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    expect(new URL(page.url()).host).toBe(new URL(test.info().project.use.baseURL!).host);
    await page.context().clearCookies();
  }
});

test('the session cookie is HttpOnly and SameSite', async ({ page }) => {
  await new LoginPage(page).visit();
  await page.getByLabel('Email').fill('viewer@demo.picks.test');
  await page.getByLabel('Password').fill('demo-viewer-pass');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  const session = (await page.context().cookies()).find((c) => c.name.endsWith('portal.session'));
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  expect(session!.expires * 1000 - Date.now()).toBeLessThanOrEqual(8 * 3600 * 1000 + 60_000);
});
