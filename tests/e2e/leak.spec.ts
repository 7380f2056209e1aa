import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, ROLES, sandboxApi, signIn, test } from '../support/fixtures';
import { E2E, e2eDay } from '../support/ports';
import { PortalPage } from '../support/pages';
import { hits, record, visited, type Seen } from '../support/leak';

/**
 * The partner key never reaches a browser. The e2e portals run with a canary key (and `npm test` builds
 * with it): it must appear zero times, plain or base64, in the build's static files and prerendered
 * output, and in every response body, header and cookie a browser sees while every role (and a
 * signed-out visitor) walks every page and exports; leak-faults.spec.ts provokes each error kind.
 * scripts/test.sh scans the portals' logs the same way after the run.
 */

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

test('the build holds no copy of the key: static files and prerendered output', () => {
  const shipped = [...files('.next/static'), ...files('.next/server/app').filter((f) => /\.(html|rsc|body|meta|json)$/.test(f))];
  expect(shipped.length).toBeGreaterThan(10);
  const leaking = shipped.filter((file) => hits(readFileSync(file, 'latin1')) > 0);
  expect(leaking).toEqual([]);
});

async function crawl(page: Page, origin: string, role: (typeof ROLES)[number] | null, pickId: string) {
  const visit = async (url: string) => {
    await new PortalPage(page, url, origin).visit();
    await visited(page);
  };
  if (role) await signIn(page, role, '/', origin);
  for (const url of [
    '/',
    '/licence',
    '/picks?sport=Football',
    '/results?league=NBA',
    `/picks/${encodeURIComponent(pickId)}`,
    '/coverage',
    '/developers',
    '/picks?status=nope',
    '/picks?cursor=bogus',
    '/picks/pk%3Ano-such',
    '/picks/%E0%A4%A',
    '/coverage?from=2020-01-01&to=2026-12-31',
    '/login?error=CredentialsSignin',
  ]) {
    await visit(url);
  }
  if (role) {
    // Client-side navigations fetch RSC payloads.
    await visit('/');
    for (const name of ['Licence', 'Picks', 'Results'])
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
    await visited(page);
    await page.getByRole('link', { name: 'Next →' }).first().click();
    await visited(page);
  }
  for (const url of [
    '/api/export/picks?format=csv&sport=Cricket',
    '/api/export/results?format=json&sport=Cricket',
    '/api/export/picks?format=xml',
    `/api/coverage?from=${e2eDay(-19)}&to=${e2eDay(-17)}`,
    '/api/v1/openapi.json',
    '/api/openapi.json',
    '/api/auth/session',
    '/api/auth/csrf',
    '/api/auth/providers',
  ]) {
    const res = await page.request.get(`${origin}${url}`);
    (page as unknown as { __seen: Seen[] }).__seen.push({
      url,
      status: res.status(),
      body: await res.text(),
      headers: JSON.stringify(res.headers()),
    });
  }
}

for (const role of [null, ...ROLES]) {
  test(`nothing a ${role ?? 'signed-out visitor'} sees holds the key`, async ({ page, context }) => {
    test.setTimeout(120_000); // some thirty page loads: 12 s alone, several times that beside the other workers
    const seen: Seen[] = [];
    const consoleLines: string[] = [];
    (page as unknown as { __seen: Seen[] }).__seen = seen;
    const { drained } = record(page, seen, consoleLines);
    const { data } = await sandboxApi<{ data: { id: string }[] }>('/picks?limit=1');
    await crawl(page, `http://localhost:${E2E.port}`, role, data[0]!.id);
    await drained();
    expect(seen.length).toBeGreaterThan(role ? 40 : 10);
    const leaks = seen.filter((s) => hits(s.body) + hits(s.headers) > 0).map((s) => `${s.status} ${s.url}`);
    expect(leaks).toEqual([]);
    expect((await context.cookies()).filter((c) => hits(`${c.name}=${c.value}`) > 0)).toEqual([]);
    expect(consoleLines.filter((line) => hits(line) > 0)).toEqual([]);
  });
}
