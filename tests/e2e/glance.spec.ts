import { expect, signInKept, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { sessionCookie } from '../support/session';
import { RecordsPage } from '../support/pages/records-page';

/**
 * "Is everything fine?" at a glance: the overview's tiles and the /results summary, each figure checked
 * against a walk of the sandbox with the same filters.
 */

const sandbox = `http://127.0.0.1:${E2E.sandboxPort}`;
const portal = `http://localhost:${E2E.port}`;
const DAY = 86_400_000;
const day = (offset: number) => new Date(Math.floor(Date.now() / DAY) * DAY + offset * DAY).toISOString().slice(0, 10);
/** A UTC day range as the portal sends it upstream: from the first day's start to the day after the last. */
const instants = (from: string, to: string) => ({
  from: `${from}T00:00:00.000Z`,
  to: new Date(Date.parse(`${to}T00:00:00.000Z`) + DAY).toISOString(),
});

interface Rec {
  id: string;
  result: string | null;
  confidenceTier: string | null;
  league: string | null;
  eventDate: string;
}

async function walk(kind: 'picks' | 'results', filters: Record<string, string>): Promise<Rec[]> {
  const out: Rec[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${sandbox}/api/v1/${kind}?${params}`, { headers: { Authorization: `Bearer ${E2E.sandboxKey}` } });
    const body = (await res.json()) as { data: Rec[]; page: { nextCursor: string | null; hasMore: boolean } };
    out.push(...body.data);
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return out;
}

const tally = (records: Rec[]) => {
  const n = (result: string) => records.filter((r) => r.result === result).length;
  const [win, loss] = [n('win'), n('loss')];
  return {
    records: records.length,
    win,
    loss,
    push: n('push'),
    void: n('void'),
    hitRate: win + loss ? `${((win / (win + loss)) * 100).toFixed(1)}%` : '—',
  };
};

test('/results opens with a summary of the filtered set: outcomes, hit rate, by tier and by league', async ({ page }) => {
  await signInKept(page, 'viewer', '/results');
  await page.waitForURL(/\/results\?from=/);
  const expected = tally(await walk('results', instants(day(-6), day(0))));
  expect(expected.records).toBeGreaterThan(0);
  const summary = page.getByTestId('results-summary');
  await expect(summary.getByTestId('summary-records')).toHaveText(`${expected.records.toLocaleString('en-GB')} results`, {
    timeout: 30_000,
  });
  // Its line says how many and the hit rate; the outcomes and the breakdown are folded under it, a click away.
  await summary.getByText('outcomes, by tier and league').click();
  for (const result of ['win', 'loss', 'push', 'void'] as const) await expect(summary.locator(`[data-result="${result}"]`)).toBeVisible();
  for (const result of ['win', 'loss', 'push', 'void'] as const)
    await expect(summary.locator(`[data-result="${result}"]`)).toHaveText(String(expected[result]));
  await expect(summary.getByTestId('summary-hit-rate')).toHaveText(expected.hitRate);

  // Narrowed to one league: the tier table adds up to that league's results, tier by tier.
  await new RecordsPage(page, '/results').visit(`league=Premier+League&from=${day(-30)}&to=${day(0)}`);
  const records = await walk('results', { league: 'Premier League', ...instants(day(-30), day(0)) });
  const tiers = [...new Set(records.map((r) => r.confidenceTier ?? '(no tier)'))].sort();
  // The breakdown is folded under the summary's line (the records stay in view), a click away.
  await summary.getByText('outcomes, by tier and league').click();
  const tierRows = summary.getByTestId('summary-tiers').locator('tbody tr');
  await expect(tierRows).toHaveCount(tiers.length, { timeout: 30_000 });
  for (const tier of tiers) {
    const t = tally(records.filter((r) => (r.confidenceTier ?? '(no tier)') === tier));
    const row = summary.getByTestId('summary-tiers').locator(`tr[data-name="${tier}"]`);
    await expect(row.locator('td').nth(0)).toHaveText(String(t.records));
    await expect(row.locator('td').nth(1)).toHaveText(`${t.win}–${t.loss}`);
    await expect(row.locator('td').nth(2)).toHaveText(t.hitRate);
  }
  await expect(summary.getByTestId('summary-leagues').locator('tbody tr')).toHaveCount(1);
  await expect(summary.getByRole('img', { name: /hit rate per confidence tier/ })).toBeVisible();
});

test('the overview answers "is everything fine?" with tiles that lead to their pages', async ({ page }) => {
  const [week, today, results] = await Promise.all([
    walk('picks', instants(day(0), day(6))),
    walk('picks', instants(day(0), day(0))),
    walk('results', instants(day(-6), day(0))),
  ]);
  await signInKept(page, 'editor', '/');
  const tiles = page.getByTestId('overview-tiles');
  await expect(tiles.getByTestId('tile-picks-week').locator('[data-value]')).toHaveText(week.length.toLocaleString('en-GB'), {
    timeout: 30_000,
  });
  await expect(tiles.getByTestId('tile-picks-today').locator('[data-value]')).toHaveText(String(today.length));
  const r = tally(results);
  await expect(tiles.getByTestId('tile-results-week').locator('[data-value]')).toHaveText(r.records.toLocaleString('en-GB'));
  await expect(tiles.getByTestId('tile-results-week')).toContainText(`Hit rate ${r.hitRate} (${r.win}–${r.loss})`);
  await expect(tiles.getByTestId('tile-licence').locator('[data-value]')).toHaveText(/^\d+ days?$|^Expired$/);
  await expect(tiles.getByTestId('tile-deliveries')).toBeVisible();
  await expect(tiles.getByTestId('tile-changes')).toHaveAttribute('href', '/changes?visit=1');
  await tiles.getByTestId('tile-picks-week').click();
  await page.waitForURL(new RegExp(`/picks\\?from=${day(0)}&to=${day(6)}$`));

  // A viewer has no deliveries: no tile for them.
  await page.context().clearCookies();
  await signInKept(page, 'viewer', '/');
  await expect(page.getByTestId('tile-licence')).toBeVisible();
  await expect(page.getByTestId('tile-deliveries')).toHaveCount(0);
});

test('GET /api/records/summary refuses an unknown kind and wrong filters, and anyone signed out', async () => {
  const cookie = await sessionCookie(portal, 'viewer');
  const bad = await fetch(`${portal}/api/records/summary?kind=bets&status=done`, { headers: { cookie } });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/kind must be picks or results, not "bets"/);
  const wrong = await fetch(`${portal}/api/records/summary?kind=results&from=yesterday`, { headers: { cookie } });
  expect(wrong.status).toBe(400);
  expect(JSON.stringify(await wrong.json())).toMatch(/from/);
  expect((await fetch(`${portal}/api/records/summary?kind=results`)).status).toBe(401);
});
