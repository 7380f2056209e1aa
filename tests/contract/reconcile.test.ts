import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce } from '@/lib/changes/poller';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { reconcile } from '@/lib/history/reconcile';
import { claimFeedLease } from '@/lib/store/change-feed';
import { countResettled, findDeliveredFile } from '@/lib/store/delivered';
import { openStore, type Store } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';
import { addOwners } from '../support/new-delivery';

/**
 * What a delivery run delivered, kept and reconciled, against the sandbox over real HTTP, on both store engines:
 * the run keeps the version of every record it placed; the sandbox then corrects three results, voids two
 * records and withdraws one; after a poll, reconciling the run reports exactly those six, each with how it
 * changed, and the delivery's automatic correction — asked for by two instances at once — is placed once,
 * holding exactly those six.
 */

const NOW = Date.now();
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
let root = '';

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
  // The process's own store (the audit trail's) is the embedded one; the history and deliveries use each engine's.
  await (await import('@/lib/store')).getStore();
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  await sandbox.close();
});

describe.each(storeEngines())('reconciling a delivery run on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    sandbox.controls.edits.clear();
    sandbox.controls.retracted.clear();
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('keeps each delivered record’s version; reports exactly the records corrected, voided and withdrawn; corrects them once', async () => {
    const target = await engine.fresh();
    const [one, two] = [await openStore(target), await openStore(target)];
    opened.push(one, two);
    const db = one.db;
    const folder = `results-${engine.name}`;
    const context = (store: Store, instance: string): SchedulerContext => ({
      db: store.db,
      instance,
      settings: { root, secretKey: null, allowPrivate: true },
    });
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

    const store = await import('@/lib/store/deliveries');
    const { runNow, runCorrections } = await import('@/lib/deliveries/scheduler');
    const id = 'dlv_00000000000000aa';
    await addOwners(db);
    await store.insertDelivery(db, {
      id,
      name: 'Recent results',
      kind: 'results',
      format: 'csv',
      filters: { from: 'today-3d', to: 'today+1d' },
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder },
      secret: null,
      corrections: true,
      createdBy: 'ana@example.com',
      createdAt: new Date(NOW).toISOString(),
      updatedAt: new Date(NOW).toISOString(),
      lastDueMs: NOW,
    });
    const delivery = (await store.findDelivery(db, id))!;
    const run = await runNow(context(one, 'a'), delivery);
    await run.done;
    const [done] = await store.listRuns(db, id);
    expect(done, `the run failed: ${done?.error}`).toMatchObject({ id: run.id, outcome: 'complete' });
    const records = done!.records!;
    expect(records).toBeGreaterThan(20);
    const keptFile = async (fileId: string) => {
      for (let i = 0; i < 200; i += 1) {
        const file = await findDeliveredFile(db, fileId);
        if (file && file.kept !== 'pending') return file;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${fileId} was never kept`);
    };
    const file = await keptFile(run.id);
    expect(file).toMatchObject({ kind: 'run', kept: 'kept', records, deliveryId: id });
    const delivered = await db.selectFrom('delivered_versions').select(['pick_id', 'digest']).where('source', '=', run.id).execute();
    expect(delivered).toHaveLength(records);
    // What the run delivered is what the poll had seen: nothing has changed yet, and there is nothing to correct.
    expect(await reconcile(db, file)).toMatchObject({ records, unchanged: records, changed: [] });
    expect(await runCorrections(context(one, 'a'), Date.now())).toEqual([]);

    const ids = delivered.map((row) => row.pick_id).sort();
    const [corrected, voided, withdrawn] = [ids.slice(0, 3), ids.slice(3, 5), ids[5]!];
    const byId = new Map(sandbox.records.map((r) => [r.id, r]));
    for (const pick of corrected)
      sandbox.controls.edits.set(pick, { fields: { result: byId.get(pick)!.outcome === 'win' ? 'loss' : 'win' }, atMs: NOW });
    for (const pick of voided) sandbox.controls.edits.set(pick, { fields: { status: 'void' }, atMs: NOW });
    sandbox.controls.retracted.add(withdrawn);
    expect((await poll()).outcome).toBe('complete');

    const result = await reconcile(db, file);
    expect(result.records).toBe(records);
    expect(result.unchanged).toBe(records - 6);
    const expected = new Map<string, string[]>([
      ...corrected.map((pick): [string, string[]] => [pick, ['result', 'resettled']]),
      ...voided.map((pick): [string, string[]] => [pick, ['voided']]),
      [withdrawn, ['withdrawn']],
    ]);
    expect(new Map(result.changed.map((c) => [c.id, c.kinds]))).toEqual(expected);
    expect(result.byKind).toEqual({ result: 3, resettled: 3, voided: 2, withdrawn: 1 });
    // Re-settlements of what the delivery delivered, as its page and the overview count them.
    expect(await countResettled(db, NOW - 86_400_000, id)).toBe(3);
    expect(await countResettled(db, NOW - 86_400_000, 'dlv_00000000000000bb')).toBe(0);
    const first = result.changed.find((c) => c.id === corrected[0])!;
    expect(first.now?.result).not.toBe(first.delivered.result);
    expect(result.changed.find((c) => c.id === withdrawn)!.now).toBeNull();

    // Two instances are told of the same poll at once: one correction run, one file, exactly those six.
    const pollMs = Date.now();
    const started = [...(await runCorrections(context(one, 'a'), pollMs)), ...(await runCorrections(context(two, 'b'), pollMs))];
    expect(started).toHaveLength(1);
    await Promise.all(started);
    const runs = await store.listRuns(db, id);
    const corrections = runs.filter((r) => r.trigger === 'correction');
    expect(corrections).toHaveLength(1);
    expect(corrections[0]).toMatchObject({ outcome: 'complete', records: 6 });
    const names = (await readdir(path.join(root, folder))).filter((n) => n.includes('-corrections-'));
    expect(names.sort()).toEqual([
      expect.stringMatching(/^recent-results-results-corrections-.*\.csv$/),
      expect.stringMatching(/\.csv\.manifest\.json$/),
      expect.stringMatching(/\.csv\.manifest\.jws$/),
    ]);
    const lines = (
      await readFile(
        path.join(
          root,
          folder,
          names.find((n) => n.endsWith('.csv'))!,
        ),
        'utf8',
      )
    )
      .trim()
      .split('\r\n');
    const rows = new Map(lines.slice(1).map((line) => [line.split(',')[1]!, line.split(',')[0]!]));
    expect(rows).toEqual(new Map([...expected].map(([pick, kinds]) => [pick, kinds.join(' ')])));
    const manifest = JSON.parse(
      await readFile(
        path.join(
          root,
          folder,
          names.find((n) => n.endsWith('.manifest.json'))!,
        ),
        'utf8',
      ),
    );
    expect(manifest).toMatchObject({ records: 6, corrects: [{ run: run.id, records: 6 }], requestedBy: { trigger: 'correction' } });
    // Sent once: nothing is left to correct, and the correction itself reconciles as unchanged.
    expect(await runCorrections(context(two, 'b'), Date.now())).toEqual([]);
    expect(await reconcile(db, await keptFile(corrections[0]!.id))).toMatchObject({ records: 5, unchanged: 5, changed: [] });
    expect(await countResettled(db, NOW - 86_400_000)).toBe(3); // corrected, still counted: it happened
  });
});
