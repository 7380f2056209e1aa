import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { insertDelivery } from '@/lib/store/deliveries';
import { claimRun, emptyStreaks, finishRun, latestRuns } from '@/lib/store/delivery-runs';
import { openStore, type Store } from '@/lib/store/open';
import type { Database } from '@/lib/store/schema';
import { storeEngines } from '../support/store-engines';

/**
 * The deliveries list and the overview read each delivery's latest run and its streak of empty runs on every
 * view. A delivery every minute adds 10,000 runs a week: both reads go from the deliveries through the index on
 * start time, never over every run.
 */

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const T0 = Date.parse('2026-11-20T06:00:00Z');
const ids = ['dlv_00000000000000a1', 'dlv_00000000000000a2', 'dlv_00000000000000a3', 'dlv_00000000000000a4'];

async function seeded(store: Store) {
  const { db } = store;
  for (const [n, id] of ids.entries()) {
    await insertDelivery(db, {
      id,
      name: `Delivery ${n}`,
      kind: 'picks',
      format: 'csv',
      filters: {},
      schedule: '* * * * *',
      destination: { type: 'directory', folder: '/tmp' },
      secret: null,
      createdBy: 'ana@example.com',
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
      lastDueMs: T0,
    });
  }
  let runs = 0;
  const run = async (
    deliveryId: string,
    minute: number,
    records: number | null,
    outcome: 'complete' | 'failed' | 'running' = 'complete',
  ) => {
    const id = `run_${(runs += 1)}`;
    const now = T0 + minute * 60_000;
    await claimRun(db, { id, deliveryId, dueMs: now, trigger: 'schedule', attempt: 1, instance: 'a', now, leaseMs: 60_000 });
    if (outcome !== 'running') {
      await finishRun(db, id, {
        outcome,
        records,
        bytes: 0,
        sha256: null,
        file: null,
        error: null,
        outsideLicence: null,
        finishedMs: now,
        durationMs: 1,
      });
    }
    return id;
  };
  // a1: records, then four empty runs (a streak of 3 at most), then one running.
  await run(ids[0]!, 0, 12);
  for (let m = 1; m <= 4; m += 1) await run(ids[0]!, m, 0);
  const a1Running = await run(ids[0]!, 5, null, 'running');
  // a2: empty, empty, then records: no streak.
  await run(ids[1]!, 0, 0);
  await run(ids[1]!, 1, 0);
  const a2Last = await run(ids[1]!, 2, 7);
  // a3: records, then a failure, then one empty run: a streak of 1 (the failure breaks it).
  await run(ids[2]!, 0, 3);
  await run(ids[2]!, 1, null, 'failed');
  const a3Last = await run(ids[2]!, 2, 0);
  // a4: no run at all.
  return { a1Running, a2Last, a3Last };
}

describe.each(storeEngines())('delivery runs on $name', (engine) => {
  it("reads each delivery's latest run and its streak of empty runs, for all and for one", async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const { a1Running, a2Last, a3Last } = await seeded(store);
    const latest = await latestRuns(store.db);
    expect([...latest].map(([id, run]) => [id, run.id, run.outcome]).sort()).toEqual([
      [ids[0], a1Running, 'running'],
      [ids[1], a2Last, 'complete'],
      [ids[2], a3Last, 'complete'],
    ]);
    expect(Object.fromEntries(await emptyStreaks(store.db, 3))).toEqual({ [ids[0]!]: 3, [ids[2]!]: 1 });
    expect(Object.fromEntries(await emptyStreaks(store.db, 5))).toEqual({ [ids[0]!]: 4, [ids[2]!]: 1 });
    expect(Object.fromEntries(await emptyStreaks(store.db, 3, ids[0]))).toEqual({ [ids[0]!]: 3 });
    expect(Object.fromEntries(await emptyStreaks(store.db, 3, ids[1]))).toEqual({});
    expect(Object.fromEntries(await emptyStreaks(store.db, 3, ids[3]))).toEqual({});
  });
});

describe('the plans of those reads (embedded database)', () => {
  it('reach the runs through the index on delivery and start time, never by scanning them', async () => {
    const [sqliteEngine] = storeEngines();
    const store = await openStore(await sqliteEngine!.fresh());
    opened.push(store);
    await seeded(store);
    const sqlite = store.sqlite!;
    const seen: CompiledQuery[] = [];
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (event) => void seen.push(event.query) });
    for (const read of [() => latestRuns(db), () => emptyStreaks(db, 3), () => emptyStreaks(db, 3, ids[0])]) {
      seen.length = 0;
      await read();
      expect(seen).toHaveLength(1);
      const plan = sqlite.prepare(`explain query plan ${seen[0]!.sql}`).all(...(seen[0]!.parameters as unknown[])) as Array<{
        detail: string;
      }>;
      const details = plan.map((row) => row.detail);
      // Only the (few) deliveries may be scanned; every run is found through an index.
      expect(details.filter((d) => /^SCAN/.test(d) && !/^SCAN d\b/.test(d))).toEqual([]);
      expect(details.some((d) => /USING (COVERING )?INDEX delivery_runs_started/.test(d))).toBe(true);
    }
  });
});
