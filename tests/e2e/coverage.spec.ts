import { expect, signInKept, snapshot, test } from '../support/fixtures';
import { E2E, e2eDay } from '../support/ports';
import { sessionCookie, walkSandbox } from '../support/session';
import { CoveragePage } from '../support/pages';

/** Coverage for account managers, in Chromium against the e2e sandbox (frozen at E2E.now). */

const sandbox = `http://127.0.0.1:${E2E.sandboxPort}`;

test('a manager sees scope against delivery, charts and field coverage for the default range', async ({ page }) => {
  await signInKept(page, 'manager');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coverage' }).click();
  await expect(page.getByTestId('coverage-report')).toBeVisible();
  // Default range: the last 30 days to the next 14, UTC, around the sandbox's frozen day (E2E.now).
  await expect(page.getByRole('search').getByLabel('From (UTC day)')).toHaveValue(/^\d{4}-\d{2}-\d{2}$/);
  const from = await page.getByRole('search').getByLabel('From (UTC day)').inputValue();
  const to = await page.getByRole('search').getByLabel('To (UTC day)').inputValue();
  const next = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString();
  const direct = await walkSandbox(sandbox, E2E.sandboxKey, 'picks', { from: `${from}T00:00:00.000Z`, to: next });

  const totals = await page.getByTestId('coverage-matrix').locator('[data-cell="delivered"]').allInnerTexts();
  expect(totals.reduce((sum, t) => sum + Number(t), 0)).toBe(direct.length);
  await expect(page.getByTestId('coverage-cost')).toContainText(`${direct.length.toLocaleString('en-US')} picks delivered`);
  // /me, one request a page, and the walk's checks at its end (the first page and up to two more: lib/picks-api/settle.ts).
  const pages = Math.ceil(direct.length / 200);
  const checks = pages > 4 ? 3 : pages > 2 ? 2 : 1;
  await expect(page.getByTestId('coverage-cost')).toContainText(`${1 + pages + checks} upstream requests`);
  expect(await page.locator('[data-testid=timeline-chart] .recharts-bar-rectangle').count()).toBeGreaterThan(20);
  expect(await page.locator('[data-testid=calibration-chart] .recharts-scatter-symbol').count()).toBeGreaterThan(3);
  await expect(page.getByTestId('probability-scale')).toContainText('0–1 scale');
  await expect(page.getByTestId('field-coverage').locator('[data-field="attribution"]')).toHaveAttribute('data-share', '1.0000');
  await snapshot(page, 'coverage');
});

test('a manager changes the range and the figures follow', async ({ page }) => {
  await signInKept(page, 'manager', '/coverage');
  await expect(page.getByTestId('coverage-report')).toBeVisible();
  await page.getByRole('search').getByLabel('From (UTC day)').fill(e2eDay(-19));
  await page.getByRole('search').getByLabel('To (UTC day)').fill(e2eDay(-10));
  await page.getByRole('search').getByLabel('Sport', { exact: true }).selectOption('Tennis');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect
    .poll(() => Object.fromEntries(new URL(page.url()).searchParams))
    .toMatchObject({ from: e2eDay(-19), to: e2eDay(-10), sport: 'Tennis' });
  await expect(page.getByTestId('coverage-cost')).toContainText(`for 10 UTC days (${e2eDay(-19)} to ${e2eDay(-10)})`);
  const direct = await walkSandbox(sandbox, E2E.sandboxKey, 'picks', {
    from: `${e2eDay(-19)}T00:00:00.000Z`,
    to: `${e2eDay(-9)}T00:00:00.000Z`,
    sport: 'Tennis',
  });
  await expect(page.getByTestId('coverage-cost')).toContainText(`${direct.length.toLocaleString('en-US')} picks delivered`);
  expect(await page.getByTestId('coverage-matrix').locator('tbody tr').count()).toBe(2);
  const csv = await page.request.get((await page.getByRole('link', { name: 'Download the matrix as CSV' }).getAttribute('href')) as string);
  expect(csv.headers()['content-disposition']).toContain(`coverage-tennis-${e2eDay(-19)}-to-${e2eDay(-10)}.csv`);
  expect((await csv.text()).split('\r\n')[0]).toBe(
    'sport,league,licensed,total,upcoming,live,settled,void,other,playerPicks,playerShare,lastPublishedAt,emptyDays,win,loss,push,resultVoid',
  );
});

test('a range beyond the bound is refused with a clear message', async ({ page }) => {
  await signInKept(page, 'admin', '/coverage?from=2026-01-01&to=2026-12-31');
  await expect(page.locator('[data-error-code="INVALID_FILTERS"]')).toContainText('at most 120 days');
  await expect(page.getByTestId('coverage-report')).toHaveCount(0);
});

test('progress shows while the walk runs', async ({ page }) => {
  const proxy = `http://127.0.0.1:${E2E.faultProxyPort}`;
  await fetch(`${proxy}/__faults`, { method: 'POST', body: JSON.stringify([{ path: '^/api/v1/picks', delayMs: 400 }]) });
  try {
    await signInKept(page, 'manager', '/', `http://localhost:${E2E.faultyPort}`);
    await new CoveragePage(page, `http://localhost:${E2E.faultyPort}`).visit();
    await expect(page.getByTestId('coverage-progress')).toContainText(/[1-9][\d,]* records, \d+ upstream requests so far/);
    await expect(page.getByTestId('coverage-report')).toBeVisible({ timeout: 30_000 });
  } finally {
    await fetch(`${proxy}/__faults`, { method: 'DELETE' });
  }
});

test('a failed walk shows the error and no figures', async ({ page }) => {
  const origin = `http://localhost:${E2E.suspendedPort}`;
  await signInKept(page, 'manager', '/', origin);
  await new CoveragePage(page, origin).visit();
  await expect(page.locator('[data-error-code="LICENCE_UNAVAILABLE"]').first()).toBeVisible();
  await expect(page.getByTestId('coverage-report')).toHaveCount(0);
});

for (const role of ['viewer', 'editor'] as const) {
  test(`a ${role} is refused coverage, page and data`, async ({ page }) => {
    await signInKept(page, role);
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coverage' })).toHaveCount(0);
    const res = await new CoveragePage(page).visit();
    expect(res!.status()).toBe(403);
    await expect(page.getByRole('heading', { name: 'Not for your role' })).toBeVisible();
    const api = await fetch(`http://127.0.0.1:${E2E.port}/api/coverage`, {
      headers: { cookie: await sessionCookie(`http://127.0.0.1:${E2E.port}`, role) },
    });
    expect(api.status).toBe(403);
    expect((await api.json()).error.code).toBe('FORBIDDEN');
  });
}
