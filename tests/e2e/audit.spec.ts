import { createHash } from 'node:crypto';
import Papa from 'papaparse';
import { expect, signIn, test } from '../support/fixtures';
import { E2E } from '../support/ports';
import { jsonSignIn, sessionCookie } from '../support/session';
import { ExportsPage } from '../support/pages';

/**
 * The audit trail end to end: what an editor's export sent is what the admin's download of the trail says
 * (count and sha256 of the very bytes received); failed and cancelled exports and failed sign-ins are
 * recorded as such; only admins read it.
 */

type Entry = {
  seq: number;
  actor: string;
  role: string | null;
  action: string;
  outcome: string;
  errorCode: string | null;
  records: number | null;
  bytes: number | null;
  sha256: string | null;
  filters: Record<string, string> | null;
  requestIds: string[];
  address: string | null;
};

const main = `http://127.0.0.1:${E2E.port}`;
const faulty = `http://127.0.0.1:${E2E.faultyPort}`;
const proxy = `http://127.0.0.1:${E2E.faultProxyPort}`;
const faults = (rules: unknown[]) => fetch(`${proxy}/__faults`, { method: 'POST', body: JSON.stringify(rules) });

async function trail(origin: string, query: string): Promise<Entry[]> {
  const admin = await sessionCookie(origin, 'admin');
  const res = await fetch(`${origin}/api/audit?format=json&${query}`, { headers: { cookie: admin } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { entries: Entry[]; count: number; complete: boolean };
  expect(body.complete).toBe(true);
  expect(body.count).toBe(body.entries.length);
  return body.entries;
}

test.afterEach(async () => {
  await fetch(`${proxy}/__faults`, { method: 'DELETE' });
});

test("an editor's export is in the trail with the count and the sha256 of the bytes the editor received", async () => {
  const editor = await sessionCookie(main, 'editor');
  const res = await fetch(`${main}/api/export/picks?format=csv&sport=Tennis`, { headers: { cookie: editor } });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  const records = Papa.parse(bytes.toString('utf8'), { header: true, skipEmptyLines: true }).data.length;
  expect(records).toBeGreaterThan(10);
  const sha256 = createHash('sha256').update(bytes).digest('hex');

  const entries = await trail(main, 'action=export.picks&actor=editor@demo.picks.test');
  const mine = entries.find((entry) => entry.sha256 === sha256);
  expect(mine).toMatchObject({
    role: 'editor',
    outcome: 'complete',
    records,
    bytes: bytes.length,
    filters: { sport: 'Tennis' },
    errorCode: null,
  });
  expect(mine!.requestIds.length).toBeGreaterThan(0);
  expect(mine!.address).toMatch(/127\.0\.0\.1|::1/);

  // The same row in the CSV download, with the columns compliance asks for.
  const admin = await sessionCookie(main, 'admin');
  const csv = await (await fetch(`${main}/api/audit?format=csv&action=export.picks`, { headers: { cookie: admin } })).text();
  const rows = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });
  for (const column of ['at', 'actor', 'role', 'action', 'target', 'filters', 'outcome', 'records', 'bytes', 'sha256', 'requestIds'])
    expect(rows.meta.fields).toContain(column);
  expect(rows.data.find((row) => row.sha256 === sha256)).toMatchObject({ actor: 'editor@demo.picks.test', records: String(records) });
});

test('an editor finds the export in "My exports", with its manifest and a run-again download', async ({ page }) => {
  const editor = await sessionCookie(main, 'editor');
  const bytes = Buffer.from(
    await (await fetch(`${main}/api/export/results?format=json&league=NBA`, { headers: { cookie: editor } })).arrayBuffer(),
  );
  const sent = JSON.parse(bytes.toString('utf8')) as { data: unknown[] };
  const sha256 = createHash('sha256').update(bytes).digest('hex');

  await signIn(page, 'editor', '/exports');
  await new ExportsPage(page).visit();
  const row = page.locator('[data-testid="exports-table"] tbody tr').first();
  await expect(row).toContainText('league: NBA');
  await expect(row.locator('[data-cell="outcome"]')).toHaveText('complete');
  const seq = await row.getAttribute('data-export');
  const manifest = await (await fetch(`${main}/api/exports/${seq}/manifest`, { headers: { cookie: editor } })).json();
  expect(manifest).toMatchObject({
    kind: 'results',
    filters: { league: 'NBA' },
    records: sent.data.length,
    bytes: bytes.length,
    sha256,
    outcome: 'complete',
  });
  expect(manifest.licence).toEqual(expect.any(String)); // the reference /me gave
  expect(Date.parse(manifest.startedAt)).toBeLessThanOrEqual(Date.parse(manifest.endedAt));

  const again = await row.getByRole('link', { name: 'Run again' }).getAttribute('href');
  expect(again).toBe('/api/export/results?league=NBA&format=json');
  const rerun = JSON.parse(await (await fetch(`${main}${again}`, { headers: { cookie: editor } })).text()) as { data: unknown[] };
  expect(rerun.data.length).toBe(sent.data.length);

  const viewer = await sessionCookie(main, 'viewer');
  expect((await fetch(`${main}/api/exports/${seq}/manifest`, { headers: { cookie: viewer } })).status).toBe(403);
  expect((await fetch(`${main}/exports`, { headers: { cookie: viewer }, redirect: 'manual' })).status).toBe(403);
  expect((await fetch(`${main}/api/exports/999999/manifest`, { headers: { cookie: editor } })).status).toBe(404);
  expect((await fetch(`${main}/api/exports/1%27%20or%201=1/manifest`, { headers: { cookie: editor } })).status).toBe(404);
  const admin = await sessionCookie(main, 'admin');
  expect((await (await fetch(`${main}/api/exports/${seq}/manifest`, { headers: { cookie: admin } })).json()).sha256).toBe(sha256);
});

test('a failed and a cancelled export are recorded as such', async () => {
  const editor = await sessionCookie(faulty, 'editor');
  await faults([{ path: '^/api/v1/picks', from: 3, status: 503 }]);
  const failed = await fetch(`${faulty}/api/export/picks?format=json`, { headers: { cookie: editor } });
  await failed.arrayBuffer().catch(() => undefined); // breaks off mid-way
  await faults([{ path: '^/api/v1/picks', from: 2, delayMs: 3_000 }]);
  const controller = new AbortController();
  const cancelled = await fetch(`${faulty}/api/export/picks?format=csv&sport=Football`, {
    headers: { cookie: editor },
    signal: controller.signal,
  });
  await cancelled.body!.getReader().read(); // the first page arrived
  controller.abort();
  await expect
    .poll(async () => (await trail(faulty, 'action=export.picks&outcome=cancelled')).some((entry) => entry.filters?.sport === 'Football'), {
      timeout: 15_000,
    })
    .toBe(true);
  const ended = await trail(faulty, 'action=export.picks&actor=editor@staff.picks.test');
  const broken = ended.filter((entry) => entry.outcome === 'failed');
  expect(broken.at(-1)).toMatchObject({ errorCode: 'UPSTREAM_ERROR', role: 'editor' });
  expect(broken.at(-1)!.records).toBeGreaterThan(0);
});

test('a failed sign-in is recorded with the address it came from; a good one too', async () => {
  expect((await jsonSignIn(main, 'editor@demo.picks.test', 'not the password')).signedIn).toBe(false);
  const entries = await trail(main, 'action=sign-in&actor=editor@demo.picks.test');
  expect(entries.some((entry) => entry.outcome === 'failed' && entry.errorCode === 'INVALID_CREDENTIALS' && entry.address)).toBe(true);
  expect(entries.some((entry) => entry.outcome === 'complete' && entry.role === 'editor')).toBe(true);
});

test('only admins read the trail; bad filters get the portal error', async () => {
  for (const role of ['viewer', 'editor', 'manager'] as const) {
    const res = await fetch(`${main}/api/audit?format=csv`, { headers: { cookie: await sessionCookie(main, role) } });
    expect(res.status, role).toBe(403);
  }
  const admin = await sessionCookie(main, 'admin');
  const bad = await fetch(`${main}/api/audit?format=csv&outcome=sometimes&colour=red`, { headers: { cookie: admin } });
  expect(bad.status).toBe(400);
  const error = ((await bad.json()) as { error: { code: string; message: string } }).error;
  expect(error.code).toBe('INVALID_FILTERS');
  expect(error.message).toContain('colour is not a filter of the audit trail');
});
