import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pollOnce, type FeedSettings } from '@/lib/changes/poller';
import { createPicksClient } from '@/lib/picks-api/client';
import { readChanges } from '@/lib/store/changes';
import { openStore } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';
import { addOwners } from '../support/new-delivery';

/**
 * Files and feeds while the upstream moves, against a sandbox whose cursors are offsets (a record published
 * before the cursor is served twice, one withdrawn before it makes the walk skip another): records are
 * published and withdrawn between the pages of a walk (the sandbox's walk events). Every export, delivery
 * and poll must hold each id once and every record that was there the whole time, and say what it saw.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let baseUrl = '';
let root = '';
/** Every id the full licence delivers for the filters below, in the sandbox's order. */
const order: string[] = [];
const FILTERS = { from: '2026-11-10T00:00:00Z', to: '2026-11-30T00:00:00Z' };

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 8000 });
  baseUrl = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'moving-'));
  root = path.join(dir, 'out');
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: baseUrl,
    PICKS_API_KEY: KEY,
    PICKS_API_MAX_RETRIES: '0',
    DELIVERY_ROOT: root,
  });
  for await (const pick of client().walkPicks(FILTERS)) order.push(pick.id!);
  expect(order.length).toBeGreaterThan(1000);
  sandbox.controls.cursors = 'offset';
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.controls.retracted.clear();
  sandbox.controls.pageEvents = [];
  sandbox.controls.churn = null;
});

const client = () => createPicksClient({ baseUrl, apiKey: KEY, retry: { maxRetries: 0 } });

/** What moves: ids at these positions of the order, published (from hidden) or withdrawn after the n-th page. */
function during(events: { afterPages: number; positions: number[]; kind: 'publish' | 'withdraw' }[]) {
  const ids = (positions: number[]) => positions.map((p) => order[p]!);
  for (const event of events) if (event.kind === 'publish') for (const id of ids(event.positions)) sandbox.controls.retracted.add(id);
  sandbox.controls.pageEvents = events.map((event) => ({
    afterPages: sandbox.controls.pagesServed + event.afterPages,
    [event.kind === 'publish' ? 'restore' : 'retract']: ids(event.positions),
  }));
  const moved = new Set(events.flatMap((event) => ids(event.positions)));
  return { moved, stayed: order.filter((id) => !moved.has(id)) };
}

/** `count` positions spread over the first `share` of the order (what a walk has passed after that share of its pages). */
const spread = (share: number, count: number) => Array.from({ length: count }, (_, i) => Math.floor((order.length * share * i) / count));

async function exportOf(format: 'csv' | 'json', who = 'ana@example.com') {
  const { exportResponse } = await import('@/lib/http/export');
  const query = new URLSearchParams({ ...FILTERS, format });
  const res = await exportResponse('picks', new Request(`http://portal.test/api/export/picks?${query}`), { email: who, role: 'editor' });
  const text = await res.text();
  const ids =
    format === 'csv'
      ? (Papa.parse<Record<string, string>>(text.trim(), { header: true }).data.map((row) => row.id!) as string[])
      : (JSON.parse(text) as { data: { id: string }[] }).data.map((record) => record.id);
  const { latestAudit } = await import('@/lib/store/audit');
  const db = (await (await import('@/lib/store')).getStore()).db;
  const [entry] = await latestAudit(db, { actor: who }, 1);
  return { res, text, ids, entry: entry! };
}

function expectWhole(ids: string[], stayed: string[]) {
  expect(new Set(ids).size).toBe(ids.length); // no id twice
  const got = new Set(ids);
  expect(stayed.filter((id) => !got.has(id))).toEqual([]); // every record there the whole walk, once
}

describe('exports while the upstream moves', () => {
  it('CSV during publications: no id twice, every record there the whole walk once, counts as recorded', async () => {
    const { stayed } = during([
      { afterPages: 3, positions: spread(0.15, 25), kind: 'publish' },
      { afterPages: 6, positions: spread(0.35, 25), kind: 'publish' },
    ]);
    const { res, ids, entry } = await exportOf('csv');
    expect(res.status).toBe(200);
    expectWhole(ids, stayed);
    expect(entry).toMatchObject({ outcome: 'complete', records: ids.length });
    expect(entry.walk).toMatchObject({ settled: true, signals: expect.arrayContaining(['an id met twice']) });
    expect(entry.walk!.duplicatesDropped).toBeGreaterThan(0);
  });

  it('JSON during withdrawals: the records skipped by the first pass are added by the second, and the file says so', async () => {
    const { stayed } = during([
      { afterPages: 4, positions: spread(0.25, 15), kind: 'withdraw' },
      { afterPages: 9, positions: spread(0.6, 15), kind: 'withdraw' },
    ]);
    const { res, text, ids, entry } = await exportOf('json');
    expect(res.status).toBe(200);
    expectWhole(ids, stayed);
    const document = JSON.parse(text) as { count: number; walk: { passes: number; addedByLaterPasses: number; settled: boolean } };
    expect(document.count).toBe(ids.length);
    expect(document.walk).toMatchObject({ passes: 2, settled: true });
    expect(document.walk.addedByLaterPasses).toBeGreaterThan(0);
    expect(entry).toMatchObject({ outcome: 'complete', records: ids.length, walk: document.walk });
  });

  it('when nothing moves: one pass, nothing recorded about the walk', async () => {
    const { ids, entry, text } = await exportOf('json');
    expect(ids).toEqual(order);
    expect(entry.walk).toBeNull();
    expect(JSON.parse(text)).not.toHaveProperty('walk');
  });

  it('a walk that never settles fails after three passes: the download breaks, and the audit says why', async () => {
    sandbox.controls.churn = order[0]!; // withdrawn and published again after every page
    const { res, entry } = await exportOf('csv').catch(async (error: Error) => ({ res: null, error, ...(await lastEntry()) }));
    expect(res === null || res.status === 200).toBe(true);
    expect(entry).toMatchObject({ outcome: 'failed', errorCode: 'WALK_UNSETTLED' });
  });
});

async function lastEntry() {
  const { latestAudit } = await import('@/lib/store/audit');
  const db = (await (await import('@/lib/store')).getStore()).db;
  const [entry] = await latestAudit(db, { actor: 'ana@example.com' }, 1);
  return { entry: entry! };
}

describe('a folder delivery while the upstream moves', () => {
  it('delivers each id once, every record there the whole run, with what the walk saw in its manifest', async () => {
    const { getStore } = await import('@/lib/store');
    const store = await import('@/lib/store/deliveries');
    const { runNow } = await import('@/lib/deliveries/scheduler');
    const db = (await getStore()).db;
    await addOwners(db);
    await store.insertDelivery(db, {
      id: 'dlv_00000000000000c1',
      name: 'Moving',
      kind: 'picks',
      format: 'csv',
      filters: FILTERS,
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder: 'moving' },
      secret: null,
      createdBy: 'ana@example.com',
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
      lastDueMs: T0,
    });
    const { stayed } = during([
      { afterPages: 2, positions: spread(0.12, 10), kind: 'publish' },
      { afterPages: 5, positions: spread(0.3, 10), kind: 'withdraw' },
    ]);
    const ctx = { db, instance: 'a', settings: { root, secretKey: null, allowPrivate: false } };
    await (
      await runNow(ctx, (await store.findDelivery(db, 'dlv_00000000000000c1'))!)
    ).done;
    const [run] = await store.listRuns(db, 'dlv_00000000000000c1');
    expect(run).toMatchObject({ outcome: 'complete' });
    const folder = path.join(root, 'moving');
    const names = (await readdir(folder)).sort();
    const csv = await readFile(path.join(folder, names[0]!), 'utf8');
    const ids = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data.map((row) => row.id!);
    expectWhole(ids, stayed);
    const manifest = JSON.parse(await readFile(path.join(folder, names[1]!), 'utf8'));
    expect(manifest).toMatchObject({ records: ids.length, walk: { settled: true } });
    expect(run!.records).toBe(ids.length);
    // A set that never stops moving: the run fails after three passes, and nothing more reaches the folder.
    sandbox.controls.churn = order[0]!;
    await (
      await runNow(ctx, (await store.findDelivery(db, 'dlv_00000000000000c1'))!)
    ).done;
    const [unsettled] = await store.listRuns(db, 'dlv_00000000000000c1');
    expect(unsettled).toMatchObject({ outcome: 'failed', file: null });
    expect(unsettled!.error).toMatch(/^WALK_UNSETTLED/);
    expect(await readdir(folder)).toHaveLength(3);
  });
});

describe.each(storeEngines())('the change feed while the upstream moves, on $name', (engine) => {
  it('lists exactly the records withdrawn, and none as restored', async () => {
    const store = await openStore(await engine.fresh());
    // A window (Nov 9 12:00 to Nov 29 12:00) that holds every withdrawn record below.
    const settings: FeedSettings = { daysBack: 11, daysAhead: 9, pollMs: 300_000 };
    const context = { db: store.db, instance: 'a', settings, walk: client().walkPicks, now: () => T0 };
    const { claimFeedLease } = await import('@/lib/store/change-feed');
    await claimFeedLease(store.db, 'a', 600_000, T0);
    expect(await pollOnce(context)).toMatchObject({ outcome: 'complete', baseline: true });
    const withdrawn = spread(0.8, 30);
    during([
      { afterPages: 3, positions: withdrawn.slice(0, 15), kind: 'withdraw' },
      { afterPages: 7, positions: withdrawn.slice(15), kind: 'withdraw' },
    ]);
    const second = await pollOnce(context);
    expect(second).toMatchObject({ outcome: 'complete' });
    expect((await (await import('@/lib/store/change-feed')).readFeed(store.db)).walk).toMatch(/^the upstream moved during the walk/);
    expect(await pollOnce(context)).toMatchObject({ outcome: 'complete' });
    const kinds = new Map<string, string>();
    for await (const change of readChanges(store.db, {})) kinds.set(change.id, change.kinds.join(' '));
    expect(
      [...kinds]
        .filter(([, k]) => k === 'withdrawn')
        .map(([id]) => id)
        .sort(),
    ).toEqual(withdrawn.map((p) => order[p]!).sort());
    expect([...kinds.values()].filter((k) => k !== 'withdrawn')).toEqual([]);
    await store.close();
  });
});
