import { expect, signInKept, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { sessionCookie } from '../support/session';
import { startStaffPortal } from '../support/staff-portal';
import { RecordsPage, recordsTable } from '../support/pages/records-page';

/**
 * The upstream fault matrix, over real HTTP: a portal (retries 1, timeout 1.5 s) behind the fault proxy
 * in front of the sandbox. For every kind: the picks page shows the portal's clear error (with the
 * upstream's requestId where it sent one) and never an empty table; an export fails visibly (an error
 * response before any byte, or a body that breaks off); transient faults are retried and then succeed;
 * and afterwards the portal still serves a normal page.
 */

const proxy = `http://127.0.0.1:${E2E.faultProxyPort}`;
const origin = `http://localhost:${E2E.faultyPort}`;
const api = `http://127.0.0.1:${E2E.faultyPort}`;

type Rule = Record<string, unknown>;
const faults = (rules: Rule[]) => fetch(`${proxy}/__faults`, { method: 'POST', body: JSON.stringify(rules) });
const err = (code: string, id: string) => JSON.stringify({ error: { code, message: 'x', requestId: id } });
const bigPage = () =>
  JSON.stringify({
    data: Array.from({ length: 200 }, (_, i) => ({
      id: `big-${i}`,
      sport: 'Football',
      league: 'Premier League',
      homeTeam: 'A',
      awayTeam: 'B',
      reasoning: 'x'.repeat(30_000),
      attribution: 'Big',
    })),
    page: { nextCursor: null, hasMore: false },
    requestId: 'req_big',
  });

const KINDS: { name: string; rules: () => Rule[]; code: string | null; requestId?: string; exportBreaksMidway?: boolean }[] = [
  {
    name: '401',
    rules: () => [{ path: '^/api/v1/picks', status: 401, body: err('UNAUTHORIZED', 'req_401') }],
    code: 'UPSTREAM_UNAUTHORIZED',
    requestId: 'req_401',
  },
  {
    name: '403',
    rules: () => [{ path: '^/api/v1/picks', status: 403, body: err('FORBIDDEN', 'req_403') }],
    code: 'LICENCE_UNAVAILABLE',
    requestId: 'req_403',
  },
  {
    name: '404',
    rules: () => [{ path: '^/api/v1/picks', status: 404, body: err('NOT_FOUND', 'req_404') }],
    code: 'NOT_FOUND',
    requestId: 'req_404',
  },
  { name: '429 without Retry-After', rules: () => [{ path: '^/api/v1/picks', status: 429, body: '' }], code: 'THROTTLED' },
  {
    name: '500',
    rules: () => [{ path: '^/api/v1/picks', status: 500, body: err('BOOM', 'req_500') }],
    code: 'UPSTREAM_ERROR',
    requestId: 'req_500',
  },
  {
    name: '502 with an HTML body',
    rules: () => [
      { path: '^/api/v1/picks', status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html><h1>502 Bad Gateway</h1></html>' },
    ],
    code: 'UPSTREAM_ERROR',
  },
  { name: '503', rules: () => [{ path: '^/api/v1/picks', status: 503, body: '' }], code: 'UPSTREAM_ERROR' },
  { name: 'a hang past the timeout', rules: () => [{ path: '^/api/v1/picks', kind: 'hang' }], code: 'UPSTREAM_TIMEOUT' },
  { name: 'a reset connection', rules: () => [{ path: '^/api/v1/picks', kind: 'reset' }], code: 'UPSTREAM_UNAVAILABLE' },
  { name: 'truncated JSON', rules: () => [{ path: '^/api/v1/picks', kind: 'truncate' }], code: 'UPSTREAM_MALFORMED' },
  {
    name: 'valid JSON of the wrong shape',
    rules: () => [{ path: '^/api/v1/picks', status: 200, body: '{"items":[],"next":null,"requestId":"req_shape"}' }],
    code: 'UPSTREAM_MALFORMED',
    requestId: 'req_shape',
  },
  { name: 'an empty body', rules: () => [{ path: '^/api/v1/picks', status: 200, body: '' }], code: 'UPSTREAM_MALFORMED' },
  {
    name: 'hasMore with a null cursor',
    rules: () => [
      {
        path: '^/api/v1/picks',
        status: 200,
        body: '{"data":[{"id":"h1"}],"page":{"hasMore":true,"nextCursor":null},"requestId":"req_hm"}',
      },
    ],
    code: null,
  },
  {
    name: 'a cursor that repeats',
    rules: () => [
      {
        path: '^/api/v1/picks',
        status: 200,
        body: '{"data":[{"id":"r1"}],"page":{"hasMore":true,"nextCursor":"same"},"requestId":"req_rep"}',
      },
    ],
    code: null,
    exportBreaksMidway: true,
  },
];

let cookie: string;
test.beforeAll(async () => {
  cookie = await sessionCookie(api, 'editor');
});
test.afterEach(async () => {
  await fetch(`${proxy}/__faults`, { method: 'DELETE' });
});

async function exportOutcome(): Promise<'refused' | 'broke off' | 'complete'> {
  const res = await fetch(`${api}/api/export/picks?format=json`, { headers: { cookie } });
  if (res.status !== 200) {
    expect(res.headers.get('content-disposition')).toBeNull();
    expect((await res.json()).error.code).toBeTruthy();
    return 'refused';
  }
  return res.text().then(
    () => 'complete' as const,
    () => 'broke off' as const,
  );
}

async function portalStillServes(page: import('@playwright/test').Page) {
  await fetch(`${proxy}/__faults`, { method: 'DELETE' });
  await new RecordsPage(page, '/picks', origin).visit('sport=Tennis&limit=5');
  await expect(recordsTable(page).locator('tbody tr')).toHaveCount(5);
}

// + the very large page, + 429 with a long Retry-After (last: it pauses the whole process, by design).
test(`covers ${KINDS.length + 2} fault kinds`, () => expect(KINDS.length + 2).toBeGreaterThanOrEqual(16));

for (const kind of KINDS) {
  test(`upstream fault: ${kind.name}`, async ({ page }) => {
    await signInKept(page, 'editor', '/licence', origin); // a page that starts no walk (the overview's tiles would)
    await faults(kind.rules());
    await new RecordsPage(page, '/picks', origin).visit('limit=50');
    if (kind.code) {
      const panel = page.locator(`[data-error-code="${kind.code}"]`).first();
      await expect(panel).toBeVisible();
      if (kind.requestId) await expect(panel).toContainText(kind.requestId);
      await expect(page.getByTestId('empty-state')).toHaveCount(0);
      await expect(recordsTable(page)).toHaveCount(0);
    } else {
      // A broken list still shows the page it has, says what is wrong with its paging, and offers no way round.
      await expect(recordsTable(page).locator('tbody tr')).toHaveCount(1);
      if (kind.exportBreaksMidway) {
        await page.getByRole('link', { name: 'Next →' }).first().click();
        await expect(page.getByTestId('circular-cursor')).toContainText('req_rep');
      } else {
        await expect(page.getByTestId('missing-cursor')).toContainText('req_hm');
      }
      await expect(page.getByRole('link', { name: 'Next →' })).toHaveCount(0);
    }
    const outcome = await exportOutcome();
    expect(outcome).toBe(kind.exportBreaksMidway ? 'broke off' : 'refused');
    await portalStillServes(page);
  });
}

test('upstream fault: a very large page is handled', async ({ page }) => {
  await signInKept(page, 'editor', '/licence', origin); // a page that starts no walk (the overview's tiles would)
  await faults([{ path: '^/api/v1/picks', status: 200, body: bigPage() }]);
  await new RecordsPage(page, '/picks', origin).visit('limit=50');
  await expect(recordsTable(page).locator('tbody tr')).toHaveCount(200);
  const res = await fetch(`${api}/api/export/picks?format=json`, { headers: { cookie } });
  const doc = await res.json();
  expect(doc.count).toBe(200);
  await portalStillServes(page);
});

for (const transient of [
  { name: '500 once', rule: { path: '^/api/v1/picks', status: 500, times: 1 } },
  { name: '503 once', rule: { path: '^/api/v1/picks', status: 503, times: 1 } },
  { name: 'a reset once', rule: { path: '^/api/v1/picks', kind: 'reset', times: 1 } },
  { name: 'a hang once', rule: { path: '^/api/v1/picks', kind: 'hang', times: 1 } },
  { name: '429 once, Retry-After 1', rule: { path: '^/api/v1/picks', status: 429, headers: { 'Retry-After': '1' }, times: 1 } },
]) {
  test(`a transient fault is retried and then succeeds: ${transient.name}`, async ({ page }) => {
    await signInKept(page, 'editor', '/licence', origin); // a page that starts no walk (the overview's tiles would)
    await faults([transient.rule]);
    await new RecordsPage(page, '/picks', origin).visit('sport=Tennis&limit=5');
    await expect(recordsTable(page).locator('tbody tr')).toHaveCount(5);
    await faults([{ ...transient.rule }]);
    const res = await fetch(`${api}/api/export/picks?format=json&sport=Cricket`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect((await res.json()).count).toBeGreaterThan(0);
  });
}

test('upstream fault: 429 with a long Retry-After pauses the whole portal, without asking the upstream again', async ({ page }) => {
  // A portal of its own: the shared gate honours the pause for every later request of that process.
  const origin = `http://localhost:${E2E.pausedPort}`;
  const api = `http://127.0.0.1:${E2E.pausedPort}`;
  const cookie = await sessionCookie(api, 'editor');
  // Signed in on a page that starts no walk of its own (the overview's tiles would meet the 429 first).
  await signInKept(page, 'editor', '/licence', origin);
  await faults([{ path: '^/api/v1/picks', status: 429, headers: { 'Retry-After': '120' }, body: err('THROTTLED', 'req_429') }]);
  await new RecordsPage(page, '/picks', origin).visit('limit=50');
  const panel = page.locator('[data-error-code="THROTTLED"]').first();
  await expect(panel).toContainText('req_429');
  await expect(panel).toContainText(/Try again in 1[12]\d s/);
  const refused = await fetch(`${api}/api/export/picks?format=json`, { headers: { cookie } });
  expect(refused.status).toBe(429);

  await fetch(`${proxy}/__faults`, { method: 'DELETE' });
  await fetch(`${proxy}/__requests`, { method: 'DELETE' });
  await new RecordsPage(page, '/results', origin).visit('sport=Tennis');
  await expect(page.locator('[data-error-code="THROTTLED"]').first()).toContainText(/Try again in \d+ s/);
  const asked = ((await (await fetch(`${proxy}/__requests`)).json()) as { path: string }[]).filter(
    (r) => r.path.startsWith('/api/v1/picks') || r.path.startsWith('/api/v1/results'),
  );
  expect(asked).toEqual([]); // the pause is honoured: no request reached the upstream
  const login = await fetch(`${api}/login`);
  expect(login.status).toBe(200); // and the process itself is healthy
});

test('a page tells a person within 10 s when the upstream takes the request and says nothing', async ({ page }) => {
  // A portal of its own with the default waits (10 s a request, 3 retries: 40 s and more for one call), behind
  // the fault proxy: the page's one deadline (PAGE_UPSTREAM_WAIT_MS) ends the wait, not the calls' own.
  test.setTimeout(150_000);
  const portal = await startStaffPortal(3242, {
    roles: ['viewer'],
    label: 'silent-upstream',
    env: { ...upstreamEnv(proxy, E2E.sandboxKey), AUTH_SECRET: 'faults-spec-secret-0123456789-abcdefghij', CHANGES_POLL_SECONDS: '0' },
  });
  try {
    await signInKept(page, 'viewer', '/licence', portal.origin);
    await faults([{ path: '^/api/v1/(picks|results)', delayMs: 120_000 }]);
    const started = Date.now();
    await new RecordsPage(page, '/picks', portal.origin).visit('sport=Tennis', { waitUntil: 'commit' });
    const panel = page.locator('[data-error-code="UPSTREAM_TIMEOUT"]').first();
    await expect(panel).toContainText('did not answer within 10 s', { timeout: 40_000 });
    expect(Date.now() - started, 'the error shows within the page’s wait (and the time to draw it)').toBeLessThan(14_000);
    await expect(panel.getByRole('link', { name: 'Retry' })).toBeVisible();
    await expect(recordsTable(page)).toHaveCount(0);
  } finally {
    await fetch(`${proxy}/__faults`, { method: 'DELETE' });
    await portal.stop();
  }
});
