import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { pollSandbox, portalInProcess } from '../support/portal-in-process';

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
  it('fills the index beyond the feed’s window with every record the licence delivers', async () => {
    const { keepIndex } = await import('@/lib/records/index-keeper');
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
    await keepIndex(store.db);
    expect(polled).toBeLessThan(upstream);
    expect(await indexSize(store.db)).toBe(upstream);
    expect(await lastWholeWalk(store.db)).toBeGreaterThanOrEqual(before);
  });
});
