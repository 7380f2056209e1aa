import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/lib/store/open';
import { sqliteConnection } from '@/lib/store/connect';
import { storeRateLimiter } from '@/lib/store/rate-limits';
import { holdStoreWrites } from '@/lib/store/write-gate';
import { storeTarget, parseStoreSettings } from '@/lib/config/store';

/**
 * The serving thread's writes to the embedded database wait for a history batch without holding the event loop
 * (lib/store/write-gate.ts). Another connection holds the file's write lock here, as the history worker does for a
 * batch: without the gate, a write of this thread would stand inside better-sqlite3 for SQLite's busy timeout (10 s),
 * the timers below could not fire, the holder could never commit, and the write would fail SQLITE_BUSY.
 */

const opened: Store[] = [];
const others: SQLite.Database[] = [];
afterEach(async () => {
  for (const other of others.splice(0)) other.close();
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function freshStore() {
  const dir = await mkdtemp(path.join(tmpdir(), 'write-gate-'));
  const store = await openStore(storeTarget(parseStoreSettings({ PORTAL_DATA_DIR: dir })));
  opened.push(store);
  const other = sqliteConnection(path.join(dir, 'portal.sqlite'));
  others.push(other);
  return { store, other };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const settled = <T>(work: Promise<T>) => {
  const state = { done: false, value: undefined as T | undefined, error: undefined as unknown };
  work.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
};

describe('the store write gate (embedded database)', () => {
  it("keeps this thread's writes waiting, the event loop free, while a batch holds the file's write lock", async () => {
    const { store, other } = await freshStore();
    const limiter = storeRateLimiter(store, { keyPrefix: 'gate-test', points: 100, duration: 60 });
    other.exec('BEGIN IMMEDIATE'); // the worker's batch holds the lock
    other.prepare("INSERT INTO meta (key, value) VALUES ('batch', 'written')").run();
    const release = holdStoreWrites(5_000);

    const started = performance.now();
    const counted = settled(limiter.consume('token-1', 3));
    const inserted = settled(store.db.insertInto('meta').values({ key: 'page', value: 'kept' }).execute());
    const transaction = settled(
      store.db.transaction().execute(async (trx) => {
        await trx.insertInto('meta').values({ key: 'in-transaction', value: 'kept' }).execute();
        return trx.selectFrom('meta').select('key').execute();
      }),
    );
    const read = await store.db.selectFrom('meta').select('key').execute(); // reads never wait for the gate
    await sleep(300); // the timer fires on time: nothing stood in the event loop
    expect(performance.now() - started).toBeLessThan(2_000);
    expect([counted.done, inserted.done, transaction.done]).toEqual([false, false, false]);
    expect(read.map((row) => row.key)).not.toContain('batch'); // not committed yet

    other.exec('COMMIT');
    release();
    await sleep(50);
    expect([counted.error, inserted.error, transaction.error]).toEqual([undefined, undefined, undefined]);
    expect(counted.value?.consumedPoints).toBe(3);
    const keys = (await store.db.selectFrom('meta').select('key').execute()).map((row) => row.key);
    expect(keys).toEqual(expect.arrayContaining(['batch', 'page', 'in-transaction']));
    expect(transaction.value?.map((row) => row.key)).toEqual(expect.arrayContaining(['batch', 'in-transaction']));
  });

  it('keeps a write waiting on a connection lent for several statements that read first', async () => {
    const { store, other } = await freshStore();
    other.exec('BEGIN IMMEDIATE');
    const release = holdStoreWrites(5_000);
    const started = performance.now();
    const lent = settled(
      store.db.connection().execute(async (db) => {
        const before = await db.selectFrom('meta').select('key').execute(); // a read takes the connection at once
        await db.insertInto('meta').values({ key: 'after-read', value: 'kept' }).execute();
        return before.length;
      }),
    );
    await sleep(300);
    expect(performance.now() - started).toBeLessThan(2_000); // the timer fired on time
    expect(lent.done).toBe(false);
    other.exec('COMMIT');
    release();
    await sleep(50);
    expect(lent.error).toBeUndefined();
    expect(await store.db.selectFrom('meta').select('value').where('key', '=', 'after-read').executeTakeFirst()).toEqual({ value: 'kept' });
  });

  it('lets a transaction that began before the hold finish its writes while the gate is held', async () => {
    const { store } = await freshStore();
    let release: () => void = () => undefined;
    const written = await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('meta').values({ key: 'first', value: '1' }).execute();
      release = holdStoreWrites(5_000); // the worker is told to go while this transaction holds the lock
      await trx.insertInto('meta').values({ key: 'second', value: '2' }).execute(); // must not wait for it
      return trx.selectFrom('meta').select('key').execute();
    });
    release();
    expect(written.map((row) => row.key)).toEqual(expect.arrayContaining(['first', 'second']));
  });

  it('ends a hold by itself at its bound', async () => {
    const { store } = await freshStore();
    holdStoreWrites(200); // never released: a worker that went away
    const started = performance.now();
    await store.db.insertInto('meta').values({ key: 'late', value: 'still written' }).execute();
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(waited).toBeLessThan(2_000);
    expect(await store.db.selectFrom('meta').select('value').where('key', '=', 'late').executeTakeFirst()).toEqual({
      value: 'still written',
    });
  });
});
