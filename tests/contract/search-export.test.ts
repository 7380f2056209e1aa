import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { deliveryMaker, folderOf } from '../support/new-delivery';
import { pollSandbox, portalInProcess } from '../support/portal-in-process';

/**
 * An export of a searched or ordered set (`q`, `sort`, `dir` beside the filters) through the export handler, with the
 * index filled by a poll of the sandbox over real HTTP: the file holds exactly the records the indexed pages show, in
 * their order, across every page; the audit entry names the search; every wrong filter and search field is named at
 * once before anything is written.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const EDITOR = { email: 'ed@example.com', role: 'editor' };
let sandbox: Sandbox;
let store: Store;
let root = '';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 1200 });
  const baseUrl = await sandbox.listen(0);
  root = await mkdtemp(path.join(tmpdir(), 'search-deliveries-'));
  store = await portalInProcess(baseUrl, KEY, { DELIVERY_ROOT: root, DELIVERY_SECRET_KEY: 'a-search-delivery-secret-key-0123456789' });
  await pollSandbox(store, baseUrl, KEY, () => sandbox.controls.now());
  const { putUser } = await import('@/lib/store/users');
  await putUser(store.db, { email: EDITOR.email, role: 'editor', passwordHash: 'x' });
});

afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

async function exported(query: string) {
  const { exportResponse } = await import('@/lib/http/export');
  const res = await exportResponse('picks', new Request(`http://portal.test/api/export/picks?${query}`), EDITOR);
  return { status: res.status, json: JSON.parse(await res.text()) as Json };
}

async function shown(query: string): Promise<string[]> {
  const { searchResponse } = await import('@/lib/http/records');
  const ids: string[] = [];
  for (let page = 1; ; page += 1) {
    const res = await searchResponse(new Request(`http://portal.test/api/records/search?kind=picks&limit=50&page=${page}&${query}`));
    const json = (await res.json()) as { data: { id: string }[]; lastPage: number };
    ids.push(...json.data.map((r) => r.id));
    if (page >= json.lastPage) return ids;
  }
}

describe('an export of a searched set', () => {
  it('holds exactly the records the pages show, in their order, and the audit names the search', async () => {
    const query = 'status=upcoming&sort=odds&dir=asc';
    const pages = await shown(query);
    expect(pages.length).toBeGreaterThan(50);
    const file = await exported(`${query}&format=json`);
    expect(file.status).toBe(200);
    expect((file.json.data as { id: string }[]).map((r) => r.id)).toEqual(pages);
    expect(file.json.count).toBe(pages.length);
    expect(file.json.export.filters).toMatchObject({ status: 'upcoming', sort: 'odds', dir: 'asc' });
    const words = await exported('q=zzzz-no-such-team&format=json');
    expect(words.json.data).toEqual([]);
    const { latestAudit } = await import('@/lib/store/audit');
    const [entry] = await latestAudit(store.db, { action: 'export.picks' }, 1);
    expect(entry!.filters).toMatchObject({ q: 'zzzz-no-such-team' });
    expect(entry!.records).toBe(0);
  });

  it('names every wrong filter and search field at once, before writing anything', async () => {
    const wrong = await exported('status=done&sort=colour&format=json');
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.json.error.details).sort()).toEqual(['sort', 'status']);
  });
});

describe('a delivery of a searched set', () => {
  it('writes what the search shows, in its order, from the index; its words and order are checked like its filters', async () => {
    const query = 'status=settled&sort=eventDate&dir=asc';
    const pages = await shown(query);
    expect(pages.length).toBeGreaterThan(20);
    const newDelivery = deliveryMaker(
      () => store.db,
      (n) => ({
        name: `Searched ${n}`,
        kind: 'picks',
        format: 'json',
        filters: { status: 'settled', sort: 'eventDate', dir: 'asc' },
        destination: { type: 'directory', folder: `searched/${n}` },
      }),
      { now: Date.now() },
    );
    const delivery = await newDelivery();
    const { runNow } = await import('@/lib/deliveries/scheduler');
    const ctx = { db: store.db, instance: 'a', settings: { root, secretKey: process.env.DELIVERY_SECRET_KEY!, allowPrivate: true } };
    const run = await runNow(ctx, delivery);
    await run.done;
    const folder = path.join(root, folderOf(delivery));
    const file = (await readdir(folder)).find((name) => name.endsWith('.json') && !name.includes('manifest'))!;
    const delivered = (JSON.parse(await readFile(path.join(folder, file), 'utf8')) as { data: { id: string }[] }).data.map((r) => r.id);
    expect(delivered).toEqual(pages);

    const { filterProblems } = await import('@/lib/deliveries/filter-rules');
    const vocabulary = { sports: null, leagues: null, leaguesBySport: {}, unread: false };
    expect(filterProblems('picks', { q: 'kingston', sort: 'odds', dir: 'asc' }, vocabulary, Date.now())).toEqual({});
    expect(Object.keys(filterProblems('picks', { sort: 'colour', dir: 'up', status: 'done' }, vocabulary, Date.now())).sort()).toEqual([
      'filters.dir',
      'filters.sort',
      'filters.status',
    ]);
  });
});
