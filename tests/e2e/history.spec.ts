import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson } from '../../lib/vocabulary/version';
import { expect, signIn, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { waitUntil, logFd } from '../support/instances';
import { startStaffPortal, type StaffPortal } from '../support/staff-portal';
import { sessionCookie } from '../support/session';
import { ExportPage, HistoryPage, PickPage } from '../support/pages';

/**
 * Record history end to end: a portal started with `npm start` polls a sandbox of this spec's own whose clock
 * and edits the test moves. A record's page shows its versions with the fields that changed; the file of the
 * set at a moment equals, record for record, what the sandbox served then; bad requests are refused whole.
 */

const SANDBOX_PORT = 4239;
const SANDBOX = `http://127.0.0.1:${SANDBOX_PORT}`;
const PORT = 3238;
const KEY = E2E.sandboxKey;
let sandbox: ChildProcess;
let portal: StaffPortal;
let db: Database.Database;
let dataDir = '';

type Rec = Record<string, unknown> & { id: string };

async function walk(window: { from: string; to: string }): Promise<Map<string, Rec>> {
  const out = new Map<string, Rec>();
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ from: window.from, to: window.to, limit: '200', ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${SANDBOX}/api/v1/picks?${params}`, { headers: { Authorization: `Bearer ${KEY}` } });
    const body = (await res.json()) as { data: Rec[]; page: { hasMore: boolean; nextCursor: string | null } };
    for (const r of body.data) out.set(r.id, r);
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return out;
}

const hook = async (name: string, body: unknown) => {
  const res = await fetch(`${SANDBOX}/__sandbox/${name}`, { method: 'POST', body: JSON.stringify(body) });
  expect(res.status, `hook ${name}`).toBe(200);
};
interface Feed {
  polls: number;
  outcome: string;
  window_from: string;
  window_to: string;
  complete_ms: number;
}
const feed = () => db.prepare('select polls, outcome, window_from, window_to, complete_ms from change_feed').get() as Feed;

async function pollNow(): Promise<{ from: string; to: string; at: number }> {
  const before = feed().polls;
  const admin = await sessionCookie(portal.origin, 'admin');
  expect(
    (await fetch(`${portal.origin}/api/changes/poll`, { method: 'POST', headers: { cookie: admin, origin: portal.origin } })).status,
  ).toBe(202);
  await waitUntil(async () => feed().polls > before && feed().outcome === 'complete', 'a poll', 60_000);
  return { from: feed().window_from, to: feed().window_to, at: Number(feed().complete_ms) };
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  sandbox = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: String(SANDBOX_PORT),
      SANDBOX_TEST_HOOKS: '1',
      SANDBOX_RATE_LIMIT: '0',
      SANDBOX_NOW: new Date().toISOString(),
      SANDBOX_FULL_KEY: KEY,
    },
    stdio: ['ignore', 'ignore', logFd(`sandbox-${SANDBOX_PORT}`)],
  });
  await waitUntil(async () => (await fetch(`${SANDBOX}/api/v1/health`, { headers: { Authorization: `Bearer ${KEY}` } })).ok, 'the sandbox');
  portal = await startStaffPortal(PORT, {
    label: 'history',
    roles: ['admin', 'editor', 'viewer'],
    env: {
      ...upstreamEnv(SANDBOX, KEY),
      AUTH_SECRET: 'history-spec-secret-0123456789-abcdef',
      PORTAL_IMAGE_ORIGINS: SANDBOX,
      CHANGES_POLL_SECONDS: '3600',
    },
  });
  dataDir = portal.dataDir;
  db = new Database(path.join(dataDir, 'portal.sqlite'), { readonly: true });
  await waitUntil(async () => feed().polls >= 1 && feed().outcome === 'complete', 'the first poll', 60_000);
});

test.afterAll(async () => {
  db?.close();
  await portal?.stop();
  if (sandbox && sandbox.exitCode === null && sandbox.signalCode === null) {
    sandbox.kill('SIGTERM');
    await once(sandbox, 'exit');
  }
});

test('a record’s versions on its page and in JSON; the set at a moment is what the sandbox served; bad requests are refused whole', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const w0 = { from: feed().window_from, to: feed().window_to };
  const at0 = Number(feed().complete_ms);
  const served0 = await walk(w0);
  const settled = [...served0.values()].filter((r) => r.status === 'settled' && (r.result === 'win' || r.result === 'loss'));
  const [corrected, gone] = [settled[0]!, settled[1]!];
  const flipped = corrected.result === 'win' ? 'loss' : 'win';

  // The sandbox corrects a result and withdraws a record; the portal polls.
  await hook('clock', { advanceMs: 60_000 });
  await hook('edit', { id: corrected.id, fields: { result: flipped } });
  await hook('retract', { ids: [gone.id] });
  const w1 = await pollNow();
  const served1 = await walk(w1);

  const viewer = await sessionCookie(portal.origin, 'viewer');
  const history = (await (
    await fetch(`${portal.origin}/api/picks/${encodeURIComponent(corrected.id)}/history`, { headers: { cookie: viewer } })
  ).json()) as {
    versions: { version: number; kind: string; changes: { field: string; before: unknown; after: unknown }[] }[];
  };
  expect(history.versions.map((v) => [v.version, v.kind])).toEqual([
    [1, 'first'],
    [2, 'changed'],
  ]);
  expect(history.versions[1]!.changes).toEqual([
    { field: 'publishedAt', before: corrected.publishedAt, after: served1.get(corrected.id)!.publishedAt },
    { field: 'result', before: corrected.result, after: flipped },
  ]);
  const unknown = await fetch(`${portal.origin}/api/picks/pk_never_seen/history`, { headers: { cookie: viewer } });
  expect(unknown.status).toBe(404);
  expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');

  await signIn(page, 'viewer', `/picks/${encodeURIComponent(corrected.id)}`, portal.origin);
  await new PickPage(page, corrected.id, portal.origin).visit();
  const versions = page.getByTestId('record-history').locator('li[data-version]');
  await expect(versions).toHaveCount(2);
  await expect(versions.first()).toHaveAttribute('data-kind', 'changed');
  await expect(versions.first().locator('[data-field="result"]')).toHaveText(`result: ${String(corrected.result)} → ${flipped}`);
  // The withdrawn record: no longer served, its history still shown.
  await new PickPage(page, gone.id, portal.origin).visit();
  await expect(page.getByTestId('not-served')).toBeVisible();
  await expect(page.getByTestId('record-history').locator('li[data-version]').first()).toHaveAttribute('data-kind', 'withdrawn');

  // The set at each moment, as a file: the sandbox's own records then, record for record.
  const editor = await sessionCookie(portal.origin, 'editor');
  const setAt = async (atMs: number, w: { from: string; to: string }) => {
    const query = new URLSearchParams({ asOf: new Date(atMs).toISOString(), from: w.from, to: w.to, format: 'json' });
    const res = await fetch(`${portal.origin}/api/history?${query}`, { headers: { cookie: editor } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-history-since')).toBe(new Date(at0).toISOString());
    const body = (await res.json()) as { history: { asOf: string; recordedSince: string }; data: Rec[]; count: number };
    expect(body.count).toBe(body.data.length);
    return new Map(body.data.map((r) => [r.id, canonicalJson(r)]));
  };
  const canonical = (set: Map<string, Rec>) => new Map([...set].map(([id, r]) => [id, canonicalJson(r)]));
  expect(await setAt(at0, w0)).toEqual(canonical(served0));
  expect(await setAt(w1.at, w1)).toEqual(canonical(served1));
  const csv = await fetch(`${portal.origin}/api/history?asOf=${new Date(w1.at).toISOString()}&from=${w1.from}&to=${w1.to}&format=csv`, {
    headers: { cookie: editor },
  });
  expect((await csv.text()).trim().split('\r\n')).toHaveLength(served1.size + 1);

  // A whole-set read like an export: with the editor's walk slots all held (by another instance), the file waits its turn.
  const slots = new Database(path.join(dataDir, 'portal.sqlite'));
  const hold = slots.prepare('insert into walk_slots (id, owner, instance, expires_at) values (?, ?, ?, ?)');
  for (const id of ['held-1', 'held-2']) hold.run(id, STAFF.editor.email, 'another-instance', Date.now() + 60_000);
  const asOfCsv = `${portal.origin}/api/history?asOf=${new Date(w1.at).toISOString()}&format=csv`;
  const limited = await fetch(asOfCsv, { headers: { cookie: editor } });
  expect(limited.status).toBe(429);
  expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('TOO_MANY_WALKS');
  slots.prepare("delete from walk_slots where instance = 'another-instance'").run();
  slots.close();
  expect((await fetch(asOfCsv, { headers: { cookie: editor } }).then((r) => r.text())).split('\r\n').length).toBeGreaterThan(1);

  // The difference between the two polls: the correction and the withdrawal among what changed.
  const diff = (await (
    await fetch(`${portal.origin}/api/history?from=${new Date(at0).toISOString()}&to=${new Date(w1.at).toISOString()}&format=json`, {
      headers: { cookie: editor },
    })
  ).json()) as { data: { id: string; change: string; fields: { field: string }[] }[] };
  expect(diff.data.find((d) => d.id === gone.id)?.change).toBe('withdrawn');
  expect(diff.data.find((d) => d.id === corrected.id)?.fields.map((f) => f.field)).toEqual(['publishedAt', 'result']);

  // Refused whole, naming every wrong field, with nothing streamed.
  const refused = async (query: string) => {
    const res = await fetch(`${portal.origin}/api/history?${query}`, { headers: { cookie: editor } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    return ((await res.json()) as { error: { details: Record<string, string> } }).error.details;
  };
  expect(await refused('asOf=yesterday&format=xml&status=nope')).toEqual({
    asOf: expect.stringContaining('ISO 8601'),
    format: 'must be csv, json, jsonl or parquet',
    status: expect.stringContaining('must be one of'),
  });
  expect(Object.keys(await refused(`asOf=${new Date(Date.now() + 3_600_000).toISOString()}`))).toEqual(['asOf']);
  expect((await refused('asOf=2020-01-01T00:00:00Z')).asOf).toContain('when the portal');
  expect((await refused(`from=${new Date(w1.at).toISOString()}&to=${new Date(at0).toISOString()}`)).to).toBe('must be after from');

  // The page: the set at a moment and the difference, with the files for those who may export.
  await new HistoryPage(page, portal.origin).visit(`asOf=${encodeURIComponent(new Date(w1.at).toISOString())}&from=${w1.from}&to=${w1.to}`);
  await expect(page.getByTestId('history-count')).toHaveAttribute('data-count', String(served1.size));
  await new HistoryPage(page, portal.origin).visit(
    `from=${encodeURIComponent(new Date(at0).toISOString())}&to=${encodeURIComponent(new Date(w1.at).toISOString())}`,
  );
  await expect(page.getByTestId('history-differences').locator(`tr[data-id="${gone.id}"]`)).toHaveAttribute('data-change', 'withdrawn');
  await new HistoryPage(page, portal.origin).visit('asOf=2020-01-01');
  await expect(page.locator('[data-error-code="INVALID_FILTERS"]')).toContainText('is before');
});

test('an export answers with its id; after the sandbox corrects one of its records, reconciling it says exactly which, on its page too', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const editor = await sessionCookie(portal.origin, 'editor');
  const res = await fetch(`${portal.origin}/api/export/picks?format=json&status=settled`, { headers: { cookie: editor } });
  expect(res.status).toBe(200);
  const exportId = res.headers.get('x-export-id')!;
  expect(exportId).toMatch(/^exp_[0-9a-f]{20}$/);
  const sent = (JSON.parse(await res.text()) as { data: Rec[] }).data;
  expect(sent.length).toBeGreaterThan(5);
  const reconcile = async () => {
    const answer = await fetch(`${portal.origin}/api/exports/${exportId}/reconcile`, { headers: { cookie: editor } });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  await expect.poll(async () => (await reconcile()).status, { timeout: 30_000 }).toBe(200);
  expect((await reconcile()).body).toMatchObject({ records: sent.length, unchanged: sent.length, changed: [] });
  // Its manifest is reachable by the same id; another person's id is not found.
  expect((await fetch(`${portal.origin}/api/exports/${exportId}/manifest`, { headers: { cookie: editor } })).status).toBe(200);
  const viewerRes = await fetch(`${portal.origin}/api/exports/${exportId}/reconcile`, {
    headers: { cookie: await sessionCookie(portal.origin, 'viewer') },
  });
  expect(viewerRes.status).toBe(403);
  for (const unknown of ['exp_00000000000000000000', '999999', 'nope'])
    expect((await fetch(`${portal.origin}/api/exports/${unknown}/reconcile`, { headers: { cookie: editor } })).status).toBe(404);

  // A record the change feed watches (inside its window): the history learns of changes from its polls.
  const { window_from: from, window_to: to } = feed();
  const target = sent.find((r) => (r.result === 'win' || r.result === 'loss') && String(r.eventDate) >= from && String(r.eventDate) < to)!;
  await hook('clock', { advanceMs: 60_000 });
  await hook('edit', { id: target.id, fields: { odds: 9.99, result: target.result === 'win' ? 'loss' : 'win' } });
  await pollNow();
  const { body } = await reconcile();
  expect(body).toMatchObject({ records: sent.length, unchanged: sent.length - 1, byKind: { result: 1, resettled: 1, odds: 1 } });
  expect(body.changed).toEqual([
    expect.objectContaining({
      id: target.id,
      kinds: ['result', 'resettled', 'odds'],
      delivered: expect.objectContaining({ result: target.result }),
    }),
  ]);

  await signIn(page, 'editor', `/exports/${exportId}`, portal.origin);
  await new ExportPage(page, exportId, portal.origin).visit();
  await expect(page.getByTestId('reconcile-counts')).toHaveAttribute('data-changed', '1');
  await expect(page.getByTestId('reconcile-changed').locator(`tr[data-id="${target.id}"]`)).toHaveAttribute(
    'data-kinds',
    'result resettled odds',
  );
  await new ExportPage(page, 'exp_00000000000000000000', portal.origin).visit();
  await expect(page.getByRole('heading', { name: /not found/i })).toBeVisible();
});
