import { mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCapture } from '@/lib/history/capture';
import type { PickList } from '@/lib/picks-api';
import { trackWalk } from '@/lib/draining';
import { deliveredCount } from '@/lib/store/delivered';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';
import { processSlot } from '@/lib/process-state';
import type { Worker } from 'node:worker_threads';

/** Keeping what a file delivered is background work: it gives way to the whole-set walks people are waiting for. */

const page = (from: number, count: number) =>
  ({
    data: Array.from({ length: count }, (_, i) => ({
      id: `pk_${from + i}`,
      sport: 'Football',
      league: 'Serie A',
      status: 'upcoming',
      odds: 2.1,
    })),
    page: { nextCursor: null, hasMore: false },
  }) as unknown as PickList;

describe.each(storeEngines())('keeping a file’s records on $name', (engine) => {
  const opened: Store[] = [];
  let walk: (() => void) | null = null;
  afterEach(async () => {
    walk?.();
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('waits while an export or delivery run is running in this process, then keeps every record once', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const spool = await mkdtemp(path.join(tmpdir(), 'capture-'));
    const capture = startCapture(async () => store.db, { id: 'exp_yield', by: 'export' }, spool);
    await capture.page(page(0, 1_500));
    await capture.page(page(1_000, 1_000)); // 500 of them again: the first sighting is the one kept
    walk = trackWalk();
    capture.finish(true);
    let kept: number | null = null;
    void capture.kept.then((n) => (kept = n));
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Nothing written while the walk runs: not a single batch.
    expect(kept).toBeNull();
    expect(await deliveredCount(store.db, 'exp_yield')).toBe(0);
    walk?.();
    walk = null;
    expect(await capture.kept).toBe(2_000);
    expect(await deliveredCount(store.db, 'exp_yield')).toBe(2_000);
  });

  it('writes each batch on a connection of its own, off the serving thread: the process’s store runs none of its queries', async () => {
    let queries = 0;
    const store = await openStore(await engine.fresh(), { observe: () => (queries += 1) });
    opened.push(store);
    const spool = await mkdtemp(path.join(tmpdir(), 'capture-'));
    const capture = startCapture(async () => store.db, { id: 'exp_off', by: 'export' }, spool);
    await capture.page(page(0, 1_000));
    queries = 0;
    capture.finish(true);
    expect(await capture.kept).toBe(1_000);
    expect(queries).toBe(0);
    expect(await deliveredCount(store.db, 'exp_off')).toBe(1_000);
  });

  it('keeps one file after another on the same worker (its modules loaded once), each on a connection of its own', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const spool = await mkdtemp(path.join(tmpdir(), 'capture-'));
    const threads: number[] = [];
    for (const id of ['exp_one', 'exp_two']) {
      const capture = startCapture(async () => store.db, { id, by: 'export' }, spool);
      await capture.page(page(0, 300));
      capture.finish(true);
      expect(await capture.kept).toBe(300);
      threads.push(processSlot<{ worker: Worker }>('historyKeeper').get()!.worker.threadId);
    }
    expect(threads[0]).toBeGreaterThan(0);
    expect(threads[1]).toBe(threads[0]);
    expect([await deliveredCount(store.db, 'exp_one'), await deliveredCount(store.db, 'exp_two')]).toEqual([300, 300]);
  });

  it('writes its spool file only as a new file: a link planted in its place is not followed', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const spool = await mkdtemp(path.join(tmpdir(), 'capture-'));
    const outside = path.join(await mkdtemp(path.join(tmpdir(), 'outside-')), 'precious.txt');
    await writeFile(outside, 'keep me');
    await symlink(outside, path.join(spool, 'capture-exp_link.bin'));
    const capture = startCapture(async () => store.db, { id: 'exp_link', by: 'export' }, spool);
    await capture.page(page(0, 10));
    capture.finish(true);
    await expect(capture.kept).rejects.toThrow(/EEXIST|ELOOP/);
    expect(await readFile(outside, 'utf8')).toBe('keep me');
    expect(await deliveredCount(store.db, 'exp_link')).toBe(0);
  });
});
