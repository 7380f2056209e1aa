import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPicksClient } from '@/lib/picks-api/client';
import { createUpstreamGate } from '@/lib/picks-api/gate';
import { toV1Error } from '@/lib/api-v1/errors';
import { claimWalkSlot } from '@/lib/walk-slots';
import { openStore, QUERY_TIMEOUT_MS, type Store } from '@/lib/store/open';
import { claimSlot } from '@/lib/store/walk-slots';
import { storeUnavailable } from '@/lib/store';
import { waitsBounded, type Wait } from '@/lib/waits';
import { startPostgres, needPostgres, type TestPostgres } from '../support/postgres';
import { storeEngines } from '../support/store-engines';
import { failure } from '../support/picks-client';

/**
 * Every wait driven past its bound (docs/architecture.md, "Waits and their bounds"): the documented error
 * comes in time, and the wait is counted by what it waited for (`portal_waits_bounded_total{wait}`). A page
 * against a silent upstream is in tests/e2e/faults.spec.ts (its error within 10 s).
 */

const counted = (wait: Wait) => waitsBounded().find(([name]) => name === wait)![1];

async function timed<T>(work: Promise<T>): Promise<{ ms: number; error: unknown }> {
  const start = performance.now();
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  return { ms: performance.now() - start, error };
}

describe('the upstream', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let base = '';
  beforeAll(async () => {
    // Accepts the connection, reads the request and never says a word.
    silent = createServer((socket) => void sockets.push(socket.on('data', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  });
  afterAll(() => {
    sockets.forEach((socket) => socket.destroy());
    silent.close();
  });

  it('one that accepts the connection and never answers: UPSTREAM_TIMEOUT at the call’s bound, counted', async () => {
    const api = createPicksClient({ baseUrl: base, apiKey: 'k', timeoutMs: 400, retry: { maxRetries: 0 } });
    const before = counted('upstream_answer');
    const { ms, error } = await timed(api.listPicks({}));
    expect((error as { code?: string }).code).toBe('UPSTREAM_TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(380);
    expect(ms).toBeLessThan(2_000);
    expect(counted('upstream_answer')).toBe(before + 1);
    expect(sockets.length).toBeGreaterThan(0); // it did reach the silent server
  });

  it('a gate held: a consumer is told PORTAL_BUSY (503, Retry-After) at its lane’s bound; a walk waits longer', async () => {
    const gate = createUpstreamGate(1);
    const held = await gate.acquire();
    const api = createPicksClient({ baseUrl: base, apiKey: 'k', gate, gateBoundsMs: { consumer: 300, bulk: 900 } });
    const before = counted('gate_slot');
    const consumer = timed(api.listPicks({}, { priority: 'consumer' }));
    const bulk = timed(api.listPicks({}, { priority: 'bulk' }));
    const [c, b] = await Promise.all([consumer, bulk]);
    held();
    expect(c.ms).toBeGreaterThanOrEqual(280);
    expect(c.ms).toBeLessThan(850);
    expect(b.ms).toBeGreaterThanOrEqual(880);
    const error = await failure(Promise.reject(c.error));
    expect(error).toMatchObject({ code: 'PORTAL_BUSY', status: 503, retryAfterSeconds: 5 });
    expect(error.message).toContain('waited 0 s for its turn');
    expect((b.error as { code?: string }).code).toBe('PORTAL_BUSY');
    expect(counted('gate_slot')).toBe(before + 2);
    // The partner's systems hear it in the API's own terms, with when to come back.
    expect(toV1Error(error)).toMatchObject({ status: 503, code: 'UNAVAILABLE', retryAfterSeconds: 5 });
  });
});

describe.each(storeEngines())('walk slots on $name', (engine) => {
  let store: Store;
  beforeAll(async () => void (store = await openStore(await engine.fresh())));
  afterAll(() => store.close());
  const limits = { MAX_EXPORTS_PER_USER: 1, MAX_CONCURRENT_EXPORTS: 4 };

  it('all taken: refused at once with TOO_MANY_WALKS, never queued; counted', async () => {
    const where = { db: store.db, instance: 'here' };
    const release = await claimWalkSlot('ed@example.com', limits, where);
    const before = counted('walk_slot');
    const { ms, error } = await timed(claimWalkSlot('ed@example.com', limits, where));
    expect(error).toMatchObject({ code: 'TOO_MANY_WALKS', retryAfterSeconds: 5 });
    expect((error as Error).message).toContain('You already have 1');
    expect(ms).toBeLessThan(1_000);
    expect(counted('walk_slot')).toBe(before + 1);
    release();
  });

  it('held by a stopped instance: free once its lease runs out, counted as a lease waited out', async () => {
    await claimSlot(store.db, 'mo@example.com', 'stopped', { perOwner: 1, perInstance: 4, leaseMs: 60_000 }, Date.now() - 61_000);
    const before = counted('lease');
    const release = await claimWalkSlot('mo@example.com', limits, { db: store.db, instance: 'here' });
    expect(counted('lease')).toBe(before + 1);
    release();
  });
});

describe('a store that stops answering', () => {
  let server: TestPostgres | null = null;
  let store: Store | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    if (!server) return;
    const url = await server.createDatabase('frozen');
    store = await openStore({ engine: 'postgres', url, label: 'PostgreSQL frozen' });
  });
  afterAll(async () => {
    server?.thaw();
    await store?.close();
    server?.destroy();
  });

  it(`PostgreSQL frozen with its connections open: a query ends within ${QUERY_TIMEOUT_MS / 1000} s, as STORE_UNAVAILABLE; counted`, async () => {
    needPostgres(server, 'the frozen-store test');
    const db = store!.db;
    await db.selectFrom('walk_slots').selectAll().execute(); // a connection open and answering
    const before = counted('store');
    server!.freeze();
    const { ms, error } = await timed(db.selectFrom('walk_slots').selectAll().execute());
    server!.thaw();
    expect(ms).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 100);
    expect(ms).toBeLessThan(QUERY_TIMEOUT_MS + 3_000);
    expect(storeUnavailable(error)).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
    expect(counted('store')).toBe(before + 1);
    // Thawed, it answers again on the same pool.
    expect(await db.selectFrom('walk_slots').selectAll().execute()).toEqual([]);
  }, 30_000);
});
