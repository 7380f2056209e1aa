import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { pollSandbox, portalInProcess, testToken } from '../support/portal-in-process';

/**
 * The whole licensed set read into the record history for the index (lib/records/index-walk.ts), from the sandbox
 * over real HTTP: after a poll the index holds the feed's window only; after the walk it holds every record the
 * licence delivers, as the upstream's own walk counts them, and says when it was walked.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let baseUrl: string;
let store: Store;

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 1500 });
  baseUrl = await sandbox.listen(0);
  store = await portalInProcess(baseUrl, KEY);
});

afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  sandbox.close();
});

describe('the whole walk for the index', () => {
  it('keeps in the index the records an API v1 walk read for a token, beyond the feed’s window', async () => {
    const { keepIndex } = await import('@/lib/records/index-keeper');
    const { flushApiPages } = await import('@/lib/history/observe-api');
    const { readRecordHistory } = await import('@/lib/store/history-read');
    const { serveV1OnNext } = await import('@/lib/api-v1/http');
    const { putUser } = await import('@/lib/store/users');
    await pollSandbox(store, baseUrl, KEY, () => sandbox.controls.now());
    await keepIndex(store.db);
    await putUser(store.db, { email: 'ed@example.com', role: 'editor', passwordHash: 'x' });
    const { secret } = await testToken(store, 'ed@example.com', { scope: { content: ['picks', 'results'] }, dailyRecords: 1_000_000 });
    const indexed = async (ids: string[]) =>
      (await store.db.selectFrom('record_index').select('pick_id').where('pick_id', 'in', ids).execute()).map((r) => r.pick_id).sort();

    // Results the feed's polls have not all read (its window is the newest days): read by the token's walk.
    const res = await serveV1OnNext(
      new Request('http://portal.test/api/v1/results?limit=100', { headers: { authorization: `Bearer ${secret}` } }),
    );
    expect(res.status).toBe(200);
    const read = ((await res.json()) as { data: { id: string }[] }).data.map((r) => r.id).sort();
    expect(read).toHaveLength(100);
    const before = await indexed(read);
    expect(before.length).toBeLessThan(read.length);

    expect(await flushApiPages()).toBe(100);
    await keepIndex(store.db);
    expect(await indexed(read)).toEqual(read);
    const newcomer = read.find((id) => !before.includes(id))!;
    const [version] = await readRecordHistory(store.db, newcomer);
    expect(version).toMatchObject({ firstBy: 'api', lastBy: 'api' });
    // The pages are kept as the upstream sent them: a record the poll had is the same version, seen again.
    const picks = await serveV1OnNext(
      new Request('http://portal.test/api/v1/picks?limit=200', { headers: { authorization: `Bearer ${secret}` } }),
    );
    const polled = await indexed(((await picks.json()) as { data: { id: string }[] }).data.map((r) => r.id));
    expect(polled.length).toBeGreaterThan(0);
    expect(await flushApiPages()).toBe(200);
    for (const id of polled) {
      const versions = await readRecordHistory(store.db, id);
      expect(versions, id).toHaveLength(1);
      expect(versions[0]).toMatchObject({ lastBy: 'api' });
    }
  });

  it('fills the index beyond the feed’s window with every record the licence delivers, on the history’s worker thread', async () => {
    const { keepIndexOnWorker } = await import('@/lib/history/capture');
    const { lastWholeWalk, walkWholeSet } = await import('@/lib/records/index-walk');
    const { indexSize } = await import('@/lib/store/record-index');
    await pollSandbox(store, baseUrl, KEY, () => sandbox.controls.now());
    const polled = await indexSize(store.db);
    expect(await lastWholeWalk(store.db)).toBeNull();

    let upstream = 0;
    let cursor: string | null = null;
    do {
      const res = await fetch(`${baseUrl}/api/v1/picks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      const page = (await res.json()) as { data: unknown[]; page: { nextCursor: string | null } };
      upstream += page.data.length;
      cursor = page.page.nextCursor;
    } while (cursor);

    const before = Date.now();
    expect(await walkWholeSet(store.db)).toBe(upstream);
    // Halted (the process stopping): its batches are not written.
    expect(await keepIndexOnWorker(store.db, AbortSignal.abort())).toEqual({ put: 0, dropped: 0 });
    expect(await indexSize(store.db)).toBe(polled);
    // The background keeper's way: the worker thread writes, this thread turns meanwhile (requests are answered).
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 1);
    const followed = await keepIndexOnWorker(store.db);
    clearInterval(ticking);
    expect(followed.put).toBeGreaterThan(500);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(followed.put / 100) - 1);
    expect(polled).toBeLessThan(upstream);
    expect(await indexSize(store.db)).toBe(upstream);
    // Nothing moved since: the mark's time is written on this thread, and the worker is not woken (left to close).
    const { indexMark } = await import('@/lib/records/index-keeper');
    const { processSlot } = await import('@/lib/process-state');
    const kept = processSlot<{ idle: unknown }>('historyKeeper');
    const idle = kept.get()?.idle;
    expect(idle).toBeTruthy();
    const marked = (await indexMark(store.db)).atMs!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await keepIndexOnWorker(store.db)).toEqual({ put: 0, dropped: 0 });
    expect((await indexMark(store.db)).atMs).toBeGreaterThan(marked);
    expect(kept.get()?.idle).toBe(idle);
    expect(await lastWholeWalk(store.db)).toBeGreaterThanOrEqual(before);
  });
});
