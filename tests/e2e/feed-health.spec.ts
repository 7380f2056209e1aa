import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, signIn, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { sessionCookie } from '../support/session';
import { expectDescribed } from '../support/described';

/**
 * Feed health on the main portal (the sandbox, polled at start): each sport the feed watches, with its state,
 * side, reason and figures, the same in the API and on /health; the cadence agreed per sport, set by admins only.
 */

const portal = `http://localhost:${E2E.port}`;
interface Sport {
  sport: string;
  state: string;
  side: string | null;
  reason: string;
  since: string;
  watched: number;
  cadenceSeconds: number | null;
  leagues: { league: string; watched: number }[];
  overdue: { upcoming: number; live: number; unsettled: number };
}

test('GET /api/feed-health names each watched sport with its state, side, reason and figures; /health shows the same', async ({ page }) => {
  const cookie = await sessionCookie(portal, 'viewer');
  const read = async () =>
    ((await (await fetch(`${portal}/api/feed-health`, { headers: { cookie } })).json()) as { sports: Sport[] }).sports;
  await expect.poll(async () => (await read()).length, { timeout: 60_000 }).toBeGreaterThan(0);
  const sports = await read();
  for (const s of sports) {
    expect(['healthy', 'degraded', 'down']).toContain(s.state);
    if (s.state === 'healthy') expect(s.side).toBeNull();
    else expect(['upstream', 'licence', 'portal']).toContain(s.side);
    expect(Date.parse(s.since)).toBeLessThanOrEqual(Date.now());
    expect(s.reason.length).toBeGreaterThan(0);
  }
  expect(sports.map((s) => s.sport)).toEqual([...sports.map((s) => s.sport)].sort((a, b) => a.localeCompare(b)));
  expect(sports.reduce((n, s) => n + s.watched, 0)).toBeGreaterThan(0);

  await signIn(page, 'viewer', '/health');
  const rows = page.getByTestId('health-table').locator('tbody tr[data-sport]'); // a sport's leagues are rows of a table of their own
  await expect(rows).toHaveCount(sports.length);
  for (const s of sports) await expect(page.locator(`tr[data-sport="${s.sport}"] > [data-cell="state"]`)).toHaveText(s.state);
  // Each sport's leagues, folded under it, as the API lists them.
  const withLeagues = sports.find((s) => s.leagues.length > 0)!;
  const folded = page.locator(`details[data-leagues="${withLeagues.sport}"]`);
  await folded.locator('summary').click();
  await expect(folded.locator('tr[data-league]')).toHaveCount(withLeagues.leagues.length);
  await expect(folded.locator(`tr[data-league="${withLeagues.leagues[0]!.league}"]`)).toContainText(
    String(withLeagues.leagues[0]!.watched),
  );
  await expect(page.getByLabel(/Agreed cadence for/)).toHaveCount(0); // viewers read it, admins set it
  // Plain words: overdue picks named by what they are late for; no instance id for anyone but admins.
  for (const s of sports) {
    const { upcoming, live, unsettled } = s.overdue;
    const words = upcoming + live + unsettled === 0 ? 'none' : /(still upcoming|still live|not settled)/;
    await expect(page.locator(`tr[data-sport="${s.sport}"] > [data-cell="overdue"]`)).toHaveText(words);
  }
  await expect(page.getByTestId('poller-state').locator('[data-field="polling"]')).toHaveText(/instance/);
  await expect(page.getByTestId('poller-details')).toHaveCount(0);
  // Nor in the API: the polling instance is in an admin's answer only; both answers are as the portal's document says.
  const answer = async (who: string) => {
    const res = await fetch(`${portal}/api/feed-health`, { headers: { cookie: who } });
    const text = await res.text();
    await expectDescribed(portal, who, 'GET', '/api/feed-health', res, text);
    return JSON.parse(text) as { poller: Record<string, unknown> };
  };
  const viewed = (await answer(cookie)).poller;
  expect(Object.keys(viewed)).not.toContain('leaseHolder');
  expect(Object.keys(viewed)).not.toContain('leaseExpiresAt');
  const holder = (await answer(await sessionCookie(portal, 'admin'))).poller.leaseHolder as string;
  expect(holder).toMatch(/\S+/);
  await expect(page.locator('main')).not.toContainText(holder);
  await expect(page.locator('main')).not.toContainText('Lease held by');
  // The instance's background jobs (lib/jobs/registry.ts), each with its last run; their problems are for admins only.
  const jobs = page.getByTestId('jobs-table');
  for (const job of ['alerts', 'audit-sealing', 'change-feed', 'deliveries', 'pruning', 'spool-sweep'])
    await expect(jobs.locator(`tr[data-job="${job}"]`).first()).toBeVisible();
  await expect(jobs.locator('tr[data-job="change-feed"] [data-cell="outcome"]').first()).toHaveText(/ok|skipped/);
  await expect(jobs.locator('tr[data-job="pruning"] [data-cell="lease"]').first()).toHaveText('one instance');
  await expect(jobs.locator('th', { hasText: 'Last problem' })).toHaveCount(0);
});

test('an admin sets the cadence agreed for a sport; silence is judged against it; others may not set it; bad values are named', async ({
  page,
}) => {
  const admin = await sessionCookie(portal, 'admin');
  const put = (cookie: string, body: unknown) =>
    fetch(`${portal}/api/feed-health/cadences`, {
      method: 'PUT',
      headers: { cookie, origin: portal, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const bad = await put(admin, { cadences: { Football: 5, Tennis: 'hourly', '': 3600 } });
  expect(bad.status).toBe(400);
  const details = ((await bad.json()) as { error: { details: Record<string, string> } }).error.details;
  expect(details).toMatchObject({
    'cadences.Football': 'must be at least 60 seconds',
    'cadences.Tennis': expect.stringContaining('seconds'),
  });
  expect((await put(await sessionCookie(portal, 'editor'), { cadences: { Football: 3600 } })).status).toBe(403);

  // An instance that stopped two hours ago: its jobs stay listed for a day, marked silent; this instance's are not.
  const store = new Database(path.join(E2E.dataDir(E2E.port), 'portal.sqlite'));
  const hour = 3_600_000;
  store
    .prepare(
      `insert or replace into job_runs (name, instance, every_ms, lease, last_started_ms, last_ms, last_outcome, next_ms, runs, failures, updated_ms)
       values ('pruning', 'vm:1:gone', ?, 'one instance', ?, 12, 'ok', ?, 3, 0, ?)`,
    )
    .run(hour, Date.now() - 3 * hour, Date.now() - 2 * hour, Date.now() - 2 * hour);
  try {
    await signIn(page, 'admin', '/health');
    const gone = page.locator('[data-testid=jobs-table] tr[data-job="pruning"]', { hasText: 'vm:1:gone' });
    await expect(gone).toHaveAttribute('data-silent', 'yes');
    await expect(gone.locator('[data-cell="next"]')).toHaveText(/^missed: silent since /);
    await expect(page.locator('[data-testid=jobs-table] tr[data-silent="yes"]')).toHaveCount(1);
    // On a phone each job is a card: the list does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const list = page.getByTestId('jobs-table').locator('xpath=..'); // its scrolling frame
    await expect.poll(() => list.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    await expect(gone.locator('[data-cell="next"]')).toBeVisible();
    await page.setViewportSize({ width: 1280, height: 720 });
  } finally {
    store.prepare(`delete from job_runs where instance = 'vm:1:gone'`).run();
    store.close();
  }
  await expect(page.getByTestId('jobs-table').locator('th', { hasText: 'Last problem' })).toHaveCount(1);
  await page.getByTestId('poller-details').locator('summary').click();
  await expect(page.getByTestId('poller-details').locator('[data-field="leaseHolder"]')).not.toBeEmpty();
  const sport = (await page.locator('tbody tr[data-sport]').first().getAttribute('data-sport'))!;
  await page.getByLabel(`Agreed cadence for ${sport}`, { exact: true }).selectOption('3600');
  await expect(page.locator(`tr[data-sport="${sport}"] [data-cell="cadence"] [role=status]`)).toHaveText(
    'Saved; judged from the next poll.',
  );
  const cadences = (await (await fetch(`${portal}/api/feed-health/cadences`, { headers: { cookie: admin } })).json()) as {
    cadences: { sport: string; seconds: number; updatedBy: string }[];
  };
  expect(cadences.cadences).toContainEqual(expect.objectContaining({ sport, seconds: 3600, updatedBy: 'admin@demo.picks.test' }));
  const health = (await (await fetch(`${portal}/api/feed-health`, { headers: { cookie: admin } })).json()) as { sports: Sport[] };
  expect(health.sports.find((s) => s.sport === sport)!.cadenceSeconds).toBe(3600);
  // Recorded in the audit trail, then removed again for the tests after this one.
  const audit = await (await fetch(`${portal}/api/audit?action=feed.cadence`, { headers: { cookie: admin } })).json();
  expect(JSON.stringify(audit)).toContain(sport);
  expect((await put(admin, { cadences: { [sport]: null } })).status).toBe(200);
});

test('the notification log is for admins: /alerts and GET /api/alerts; send again refuses an unknown alert and another site', async ({
  page,
}) => {
  const admin = await sessionCookie(portal, 'admin');
  const editor = await sessionCookie(portal, 'editor');
  expect((await fetch(`${portal}/api/alerts`, { headers: { cookie: editor } })).status).toBe(403);
  const log = await fetch(`${portal}/api/alerts`, { headers: { cookie: admin } });
  expect(log.status).toBe(200);
  expect(Array.isArray(((await log.json()) as { data: unknown[] }).data)).toBe(true);
  const resend = (cookie: string, origin: string) =>
    fetch(`${portal}/api/alerts/${encodeURIComponent('1:sport.down:Nowhere')}/resend`, { method: 'POST', headers: { cookie, origin } });
  expect((await resend(admin, portal)).status).toBe(404);
  expect((await resend(admin, 'https://evil.example')).status).toBe(403);
  expect((await resend(editor, portal)).status).toBe(403);

  await signIn(page, 'admin', '/alerts');
  await expect(page.getByRole('heading', { name: 'Alerts', exact: true })).toBeVisible();
  await expect(page.getByTestId('subscriptions-table').locator('tr[data-email="admin@demo.picks.test"]')).toContainText('role default');
  await expect(page.getByText('(no SMTP_URL is set: alerts are kept here, unmailed)')).toBeVisible(); // this portal mails nothing, and says so
  await page.context().clearCookies();
  await signIn(page, 'manager', '/alerts');
  await expect(page.getByRole('heading', { name: 'Not for your role' })).toBeVisible();
});

test('each person chooses their alert emails; a wrong kind is named; admins see everyone’s choice', async ({ page }) => {
  const viewer = await sessionCookie(portal, 'viewer');
  const put = (body: unknown) =>
    fetch(`${portal}/api/alerts/subscription`, {
      method: 'PUT',
      headers: { cookie: viewer, origin: portal, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const wrong = await put({ kinds: ['sport.down', 'sport.exploded'] });
  expect(wrong.status).toBe(400);
  expect(((await wrong.json()) as { error: { details: { kinds: string } } }).error.details.kinds).toMatch(
    /"sport.exploded" is not an alert kind/,
  );
  const before = (await (await fetch(`${portal}/api/alerts/subscription`, { headers: { cookie: viewer } })).json()) as {
    kinds: string[];
    chosen: boolean;
  };
  expect(before).toMatchObject({ kinds: [], chosen: false }); // a viewer opts in
  // Only the kinds a viewer may open: token and delivery alerts are not among them, every one named.
  const closed = await put({ kinds: ['sport.down', 'token.expiring', 'delivery.failed'] });
  expect(closed.status).toBe(400);
  expect(((await closed.json()) as { error: { details: { kinds: string } } }).error.details.kinds).toMatch(
    /"token.expiring", "delivery.failed" tell about what your role \(viewer\) may not open/,
  );

  await signIn(page, 'viewer', '/health');
  const form = page.getByRole('form', { name: 'Alert emails for me' });
  await form.getByLabel('A sport down (the upstream)').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByTestId('subscription-note')).toHaveText('Saved.');

  const admin = await sessionCookie(portal, 'admin');
  const everyone = (await (await fetch(`${portal}/api/alerts/subscriptions`, { headers: { cookie: admin } })).json()) as {
    data: { email: string; kinds: string[]; chosen: boolean }[];
  };
  expect(everyone.data.find((s) => s.email === 'viewer@demo.picks.test')).toEqual(
    expect.objectContaining({ kinds: ['sport.down'], chosen: true }),
  );
  expect(everyone.data.find((s) => s.email === 'admin@demo.picks.test')!.kinds.length).toBeGreaterThan(3); // admins opt out
  // On /alerts, each person's kinds in the form's words, not the API's keys.
  await page.context().clearCookies();
  await signIn(page, 'admin', '/alerts');
  const who = page.getByTestId('subscriptions-table');
  await expect(who.locator('tr[data-email="viewer@demo.picks.test"] [data-cell="kinds"]')).toHaveText('A sport down (the upstream)');
  await expect(who.locator('tr[data-email="admin@demo.picks.test"] [data-cell="kinds"]')).toHaveText(/^all \d+ their role may choose$/);
  expect((await fetch(`${portal}/api/alerts/subscriptions`, { headers: { cookie: viewer } })).status).toBe(403);
  expect((await put({ kinds: [] })).status).toBe(200); // back as it was, for the tests after this one
});
