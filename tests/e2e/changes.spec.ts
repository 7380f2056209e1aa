import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import Database from 'better-sqlite3';
import pg from 'pg';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance, logFd } from '../support/instances';
import { startStaffPortal } from '../support/staff-portal';
import { sessionCookie } from '../support/session';
import { ChangesPage, LoginPage, OverviewPage } from '../support/pages';

/**
 * The change feed end to end: portals started with `npm start` against a sandbox of this spec's own whose
 * clock, retractions and edits the test moves through the sandbox's test-only hooks. What the feed lists is
 * compared with what the sandbox's API itself delivers before and after, walked directly with the same
 * window the portal used: exact ids and kinds, nothing more. Then two instances on one PostgreSQL poll as one.
 */

const SANDBOX = 'http://127.0.0.1:4230';
const ONE = 3215;
const PAIR = [3213, 3214] as const;
const KEY = E2E.sandboxKey;
let sandbox: ChildProcess;
const instances: Instance[] = [];

type Seen = Map<string, { status: string | null; result: string | null; publishedAt: string | null; eventDate: string | null }>;

async function walk(window: { from: string; to: string }): Promise<Seen> {
  const out: Seen = new Map();
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...window, limit: '200', ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${SANDBOX}/api/v1/picks?${params}`, { headers: { Authorization: `Bearer ${KEY}` } });
    const body = (await res.json()) as { data: Record<string, string | null>[]; page: { hasMore: boolean; nextCursor: string | null } };
    for (const r of body.data)
      out.set(r.id!, { status: r.status!, result: r.result!, publishedAt: r.publishedAt!, eventDate: r.eventDate! });
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return out;
}

const hook = async (name: string, body: unknown) => {
  const res = await fetch(`${SANDBOX}/__sandbox/${name}`, { method: 'POST', body: JSON.stringify(body) });
  expect(res.status, `hook ${name}`).toBe(200);
};

async function startPortal(port: number, env: Record<string, string>): Promise<Instance & { dataDir: string }> {
  const instance = await startStaffPortal(port, {
    label: 'changes',
    roles: ['admin', 'editor', 'viewer', 'manager'],
    env: { ...upstreamEnv(SANDBOX, KEY), AUTH_SECRET: 'changes-spec-secret-0123456789-abcdef', PORTAL_IMAGE_ORIGINS: SANDBOX, ...env },
  });
  instances.push(instance);
  return instance;
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const taken = await fetch(`${SANDBOX}/api/v1/health`).then(
    () => true,
    () => false,
  );
  expect(taken, 'port 4230 must be free (a sandbox left over from an earlier run?)').toBe(false);
  // The sandbox's data is laid around today (UTC), as the portal's window is: the portal's clock is the real one.
  sandbox = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: '4230',
      SANDBOX_TEST_HOOKS: '1',
      SANDBOX_RATE_LIMIT: '0',
      SANDBOX_NOW: new Date().toISOString(),
      SANDBOX_FULL_KEY: KEY,
    },
    stdio: ['ignore', 'ignore', logFd('sandbox-4230')],
  });
  await waitUntil(async () => (await fetch(`${SANDBOX}/api/v1/health`, { headers: { Authorization: `Bearer ${KEY}` } })).ok, 'the sandbox');
});

test.afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  if (sandbox.exitCode === null && sandbox.signalCode === null) {
    sandbox.kill('SIGTERM');
    await once(sandbox, 'exit');
  }
});

test.describe.serial('one portal watching the sandbox', () => {
  let portal: Instance & { dataDir: string };
  let db: Database.Database;
  const feed = () =>
    db.prepare('select * from change_feed').get() as { polls: number; outcome: string; window_from: string; window_to: string };
  const expected = new Map<string, string>();
  let withdrawnIds: string[] = [];
  let updatedId = '';

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    // An hour between polls: this spec asks for each poll itself ("Poll now"), so it knows the windows compared.
    portal = await startPortal(ONE, { CHANGES_POLL_SECONDS: '3600' });
    db = new Database(path.join(portal.dataDir, 'portal.sqlite'), { readonly: true });
  });
  test.afterAll(() => db?.close());

  test('the first poll is the baseline; a moved clock, retractions and an edit list exactly what changed', async () => {
    test.setTimeout(120_000);
    await waitUntil(async () => feed().polls >= 1 && feed().outcome === 'complete', 'the baseline poll', 60_000);
    expect(db.prepare('select count(*) as n from changes').get()).toEqual({ n: 0 });
    const w0 = { from: feed().window_from, to: feed().window_to };
    const before = await walk(w0);
    expect(db.prepare('select count(*) as n from watched').get()).toEqual({ n: before.size });

    const upcoming = [...before].filter(([, r]) => r.status === 'upcoming' && Date.parse(r.eventDate!) > Date.now() + 2 * 86_400_000);
    withdrawnIds = [upcoming[0]![0], upcoming[1]![0]];
    updatedId = upcoming[2]![0];
    await hook('clock', { advanceMs: 6 * 3_600_000 });
    await hook('retract', { ids: withdrawnIds });
    await hook('edit', { id: updatedId, fields: { odds: 7.77 } });

    const admin = await sessionCookie(portal.origin, 'admin');
    const res = await fetch(`${portal.origin}/api/changes/poll`, { method: 'POST', headers: { cookie: admin, origin: portal.origin } });
    expect(res.status).toBe(202);
    const asked = (await res.json()) as { poll: string; since: string };
    expect(asked).toEqual({ poll: expect.stringMatching(/^(started|running)$/), since: expect.any(String) });
    expect(Date.parse(asked.since)).toBeLessThanOrEqual(Date.now());
    await waitUntil(async () => feed().polls >= 2 && feed().outcome === 'complete', 'the second poll', 60_000);
    const w1 = { from: feed().window_from, to: feed().window_to };
    const after = await walk(w1);

    const inside = (date: string | null, w: { from: string; to: string }) => date !== null && date >= w.from && date < w.to;
    for (const [id, now] of after) {
      const was = before.get(id);
      if (!was) {
        if (inside(now.eventDate, w0)) expected.set(id, 'new');
        continue;
      }
      const kinds = [was.status !== now.status && 'status', was.result !== now.result && 'result'].filter(Boolean);
      if (kinds.length === 0 && was.publishedAt !== now.publishedAt) kinds.push('updated');
      if (kinds.length > 0) expected.set(id, kinds.join(' '));
    }
    for (const [id, was] of before) if (!after.has(id) && inside(was.eventDate, w1)) expected.set(id, 'withdrawn');
    for (const id of withdrawnIds) expect(expected.get(id)).toBe('withdrawn');
    expect(expected.get(updatedId)).toBe('updated');
    expect([...expected.values()].filter((k) => k === 'new').length).toBeGreaterThan(0);

    const editor = await sessionCookie(portal.origin, 'editor');
    const download = await fetch(`${portal.origin}/api/changes?format=json`, { headers: { cookie: editor } });
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    const body = JSON.parse(bytes.toString('utf8')) as {
      data: { id: string; kinds: string[]; sport: string; eventDate: string }[];
      count: number;
    };
    expect(new Map(body.data.map((c) => [c.id, c.kinds.join(' ')]))).toEqual(expected);
    expect(body.count).toBe(expected.size);
    expect(body.data.every((c) => c.sport && c.eventDate)).toBe(true);

    // Audited like every export: the admin's trail holds the sha256 of exactly the bytes the editor received.
    const trail = await fetch(`${portal.origin}/api/audit?format=json&action=export.changes`, { headers: { cookie: admin } });
    const entries = ((await trail.json()) as { entries: { actor: string; records: number; sha256: string; outcome: string }[] }).entries;
    expect(entries.at(-1)).toMatchObject({
      actor: STAFF.editor.email,
      records: expected.size,
      outcome: 'complete',
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });

    // JSON Lines: the same entries, one a line.
    const jsonl = await fetch(`${portal.origin}/api/changes?format=jsonl`, { headers: { cookie: editor } });
    expect(jsonl.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
    const entryLines = (await jsonl.text()).trimEnd().split('\n');
    expect(entryLines.map((line) => JSON.parse(line))).toEqual(body.data);

    const csv = await fetch(`${portal.origin}/api/changes?format=csv&kind=withdrawn`, { headers: { cookie: editor } });
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toMatch(/^seq,detectedAt,id,kinds,/);
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[2])
        .sort(),
    ).toEqual([...withdrawnIds].sort());
  });

  test('the download is for editors and admins; viewers and managers are refused, and Poll now is for admins', async () => {
    for (const role of ['viewer', 'manager'] as const) {
      const cookie = await sessionCookie(portal.origin, role);
      const res = await fetch(`${portal.origin}/api/changes?format=csv`, { headers: { cookie } });
      expect(res.status, role).toBe(403);
      expect(await res.text()).not.toContain(withdrawnIds[0]!);
    }
    const editor = await sessionCookie(portal.origin, 'editor');
    expect(
      (await fetch(`${portal.origin}/api/changes/poll`, { method: 'POST', headers: { cookie: editor, origin: portal.origin } })).status,
    ).toBe(403);
    const bad = await fetch(`${portal.origin}/api/changes?since=yesterday&kind=gone`, { headers: { cookie: editor } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details).toEqual({
      since: `must be a UTC day (${new Date().toISOString().slice(0, 10)}) or an ISO 8601 time`,
      kind: expect.stringContaining('must be one of new, status'),
    });
  });

  test('in Chromium: the page lists the changes, filters by kind in the URL, links each to its pick, and says where the feed stands', async ({
    page,
  }) => {
    await new LoginPage(page, portal.origin).visit('callbackUrl=/changes');
    await page.getByLabel('Email').fill(STAFF.viewer.email);
    await page.getByLabel('Password').fill(STAFF.viewer.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/changes');
    await expect(page.getByTestId('feed-status')).toContainText('Last complete poll');
    await expect(page.getByTestId('feed-watched')).toHaveText(
      (db.prepare('select count(*) as n from watched where withdrawn = 0').get() as { n: number }).n.toLocaleString('en-GB'),
    );
    const rows = page.locator('[data-testid=changes-table] tbody tr');
    await expect(rows).toHaveCount(Math.min(expected.size, 100));
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await expect(page.getByRole('link', { name: 'Download CSV' })).toHaveCount(0); // viewers browse, editors download
    await expect(page.getByRole('button', { name: 'Poll now' })).toHaveCount(0);

    await page.getByLabel('Kind of change').selectOption('withdrawn');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/kind=withdrawn/);
    await expect(rows).toHaveCount(2);
    expect((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-change')))).sort()).toEqual([...withdrawnIds].sort());
    await expect(rows.first().locator('td').nth(6)).toHaveText('not delivered');

    await new ChangesPage(page, portal.origin).visit('kind=updated');
    const link = page.locator(`[data-change="${updatedId}"] a`).first();
    await link.click();
    await page.waitForURL((url) => decodeURIComponent(url.pathname) === `/picks/${updatedId}`);
    await expect(page.getByText('7.77').first()).toBeVisible();

    // The overview counts what the feed holds for someone who has not visited since (everything, for this viewer's first visit).
    await new OverviewPage(page, portal.origin).visit();
    const counts = page.getByTestId('change-counts');
    await expect(counts.locator('[data-kind=withdrawn] span').first()).toHaveText('2');
    await expect(counts.locator('[data-kind=updated] span').first()).toHaveText(
      String([...expected.values()].filter((k) => k === 'updated').length),
    );
  });
});

test.describe.serial('two instances on one PostgreSQL', () => {
  let pgServer: TestPostgres | null = null;
  let client: pg.Client;
  const feed = async () =>
    (await client.query('select holder, polls::int, requests::int, polled_by, outcome from change_feed')).rows[0] as {
      holder: string;
      polls: number;
      requests: number;
      polled_by: string;
      outcome: string;
    };
  const picksRequests = async () =>
    ((await (await fetch(`${SANDBOX}/__sandbox/stats`)).json()) as { byRoute: { picks?: number } }).byRoute.picks ?? 0;
  let pair: Instance[] = [];
  let holderA = '';

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    pgServer = await startPostgres();
    if (!pgServer) {
      test.skip(true, postgresMissing('the two-instance change feed test'));
      return;
    }
    const url = await pgServer.createDatabase('changes');
    client = new pg.Client({ connectionString: url });
    await client.connect();
    // A first, polling before B exists: A holds the lease (renewed while it lives), so stopping A shows the takeover.
    // The index's whole walk (a minute after start) off: it reads the upstream too, and this counts the polls' reads.
    const settings = { DATABASE_URL: url, CHANGES_POLL_SECONDS: '5', INDEX_WALK_HOURS: '0' };
    pair.push(await startPortal(PAIR[0], settings));
    await waitUntil(async () => (await feed()).polls >= 1, "A's first poll", 60_000);
    holderA = (await feed()).holder;
    pair.push(await startPortal(PAIR[1], settings));
  });
  test.afterAll(async () => {
    await client?.end();
    await Promise.all(pair.map((instance) => instance.stop()));
    pair = [];
    pgServer?.destroy();
  });

  test('poll as one: upstream requests are one walk per period, not one per instance; the survivor takes over', async () => {
    test.setTimeout(120_000);
    await waitUntil(async () => (await feed()).polls >= 2 && (await feed()).outcome === 'complete', 'two polls', 60_000);
    const start = { polls: (await feed()).polls, requests: await picksRequests() };
    await new Promise((resolve) => setTimeout(resolve, 21_000));
    await waitUntil(async () => (await feed()).outcome === 'complete', 'a poll to end', 20_000);
    const end = await feed();
    const polls = end.polls - start.polls;
    // 21 s at one poll per 5 s by one holder: 4 or 5 polls; two pollers would make 8 or more.
    expect(polls).toBeGreaterThanOrEqual(3);
    expect(polls).toBeLessThanOrEqual(5);
    expect((await picksRequests()) - start.requests).toBe(polls * end.requests);

    expect(end.holder).toBe(holderA);
    expect(end.polled_by).toBe(holderA);

    // A stops without a word (its lease is not released): B takes over once the lease runs out, within two periods.
    await pair[0]!.stop();
    const stoppedAt = Date.now();
    await waitUntil(
      async () => {
        const now = await feed();
        return now.polled_by !== holderA && now.polls > end.polls && now.outcome === 'complete';
      },
      'B to take over and poll',
      30_000,
    );
    expect(Date.now() - stoppedAt).toBeLessThan(2 * 5_000 + 3_000);
    const taken = await feed();
    expect(taken.holder).not.toBe(holderA);
    expect(taken.holder).toBe(taken.polled_by);
  });
});
