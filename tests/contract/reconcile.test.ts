import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce } from '@/lib/changes/poller';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { reconcile } from '@/lib/history/reconcile';
import { claimFeedLease } from '@/lib/store/change-feed';
import { findDeliveredFile } from '@/lib/store/delivered';
import type { Delivery } from '@/lib/store/deliveries';
import { createSandbox, type Sandbox } from '@/sandbox/server';

/**
 * What a delivery run delivered, kept and reconciled, against the sandbox over real HTTP: the run keeps the
 * version of every record it placed; the sandbox then corrects three results, voids two records and withdraws
 * one; after a poll, reconciling the run reports exactly those six, each with how it changed.
 */

const NOW = Date.now();
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let root = '';
let ctx: SchedulerContext;
let db: Awaited<ReturnType<(typeof import('@/lib/store'))['getStore']>>['db'];

beforeAll(async () => {
  sandbox = createSandbox({ now: () => NOW, rateLimit: null, picks: 4000 });
  const upstream = await sandbox.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'reconcile-'));
  root = path.join(dir, 'out');
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: KEY,
    PICKS_API_MAX_RETRIES: '0',
    DELIVERY_ROOT: root,
  });
  db = (await (await import('@/lib/store')).getStore()).db;
  ctx = { db, instance: 'a', settings: { root, secretKey: null, allowPrivate: true } };
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  await sandbox.close();
});

async function runDelivery(): Promise<{ delivery: Delivery; runId: string; records: number }> {
  const store = await import('@/lib/store/deliveries');
  const { runNow } = await import('@/lib/deliveries/scheduler');
  await store.insertDelivery(db, {
    id: 'dlv_00000000000000aa',
    name: 'Recent results',
    kind: 'results',
    format: 'csv',
    filters: { from: 'today-3d', to: 'today+1d' },
    schedule: '0 6 * * *',
    destination: { type: 'directory', folder: 'results' },
    secret: null,
    createdBy: 'ana@example.com',
    createdAt: new Date(NOW).toISOString(),
    updatedAt: new Date(NOW).toISOString(),
    lastDueMs: NOW,
  });
  const delivery = (await store.findDelivery(db, 'dlv_00000000000000aa'))!;
  const run = await runNow(ctx, delivery);
  await run.done;
  const [done] = await store.listRuns(db, delivery.id);
  expect(done).toMatchObject({ id: run.id, outcome: 'complete' });
  return { delivery, runId: run.id, records: done!.records! };
}

const keptFile = async (id: string) => {
  for (let i = 0; i < 200; i += 1) {
    const file = await findDeliveredFile(db, id);
    if (file && file.kept !== 'pending') return file;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${id} was never kept`);
};

describe('reconciling a delivery run', () => {
  it('keeps each delivered record’s version, and reports exactly the records corrected, voided and withdrawn since', async () => {
    const poll = () =>
      pollOnce({
        db,
        instance: 'a',
        settings: { daysBack: 7, daysAhead: 14, pollMs: 300_000 },
        walk: async function* (filters, call) {
          const { createPicksClient } = await import('@/lib/picks-api/client');
          yield* createPicksClient({ baseUrl: process.env.PICKS_API_BASE_URL!, apiKey: KEY }).walkPicks(filters, call);
        },
      });
    expect(await claimFeedLease(db, 'a', 86_400_000)).toBe(true);
    expect((await poll()).outcome).toBe('complete');

    const { runId, records } = await runDelivery();
    expect(records).toBeGreaterThan(20);
    const file = await keptFile(runId);
    expect(file).toMatchObject({ kind: 'run', kept: 'kept', records, deliveryId: 'dlv_00000000000000aa' });
    const delivered = await db.selectFrom('delivered_versions').select(['pick_id', 'digest']).where('source', '=', runId).execute();
    expect(delivered).toHaveLength(records);
    // What the run delivered is what the poll had seen: nothing has changed yet.
    expect(await reconcile(db, file)).toMatchObject({ records, unchanged: records, changed: [] });

    const ids = delivered.map((row) => row.pick_id).sort();
    const [corrected, voided, withdrawn] = [ids.slice(0, 3), ids.slice(3, 5), ids[5]!];
    const byId = new Map(sandbox.records.map((r) => [r.id, r]));
    for (const id of corrected)
      sandbox.controls.edits.set(id, { fields: { result: byId.get(id)!.outcome === 'win' ? 'loss' : 'win' }, atMs: NOW });
    for (const id of voided) sandbox.controls.edits.set(id, { fields: { status: 'void' }, atMs: NOW });
    sandbox.controls.retracted.add(withdrawn);
    expect((await poll()).outcome).toBe('complete');

    const result = await reconcile(db, file);
    expect(result.records).toBe(records);
    expect(result.unchanged).toBe(records - 6);
    expect(new Map(result.changed.map((c) => [c.id, c.kinds]))).toEqual(
      new Map([
        ...corrected.map((id) => [id, ['result', 'resettled']] as const),
        ...voided.map((id) => [id, ['voided']] as const),
        [withdrawn, ['withdrawn']],
      ]),
    );
    expect(result.byKind).toEqual({ result: 3, resettled: 3, voided: 2, withdrawn: 1 });
    const one = result.changed.find((c) => c.id === corrected[0])!;
    expect(one.now?.result).not.toBe(one.delivered.result);
    expect(result.changed.find((c) => c.id === withdrawn)!.now).toBeNull();
  });
});
