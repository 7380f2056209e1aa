import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { needPostgres, startPostgres, type TestPostgres } from '../support/postgres';
import { deliveryMaker, folderOf } from '../support/new-delivery';

/**
 * A real PostgreSQL stopped and started under the portal's feet (docs/operations.md#store-outages): a
 * delivery run whose store goes away as its file is placed is recorded complete once it is back, with one
 * file and one audit entry; the instance's own run is never taken for crashed; a run that crashed after
 * placing its file is recognised by its manifest and not delivered again; audit entries kept while the store
 * is away join the chain in order, also through a stop; an export it interrupts is sent whole and audited once
 * on return; a poll the outage breaks records nothing.
 */

const KEY = 'sandbox-full-key';
const NOW = Date.now();
let pgServer: TestPostgres | null = null;
let sandbox: Sandbox;
let root = '';
let dataDir = '';
let ctx: SchedulerContext;
let db: Awaited<ReturnType<(typeof import('@/lib/store'))['getStore']>>['db'];
let store: typeof import('@/lib/store/deliveries');
let scheduler: typeof import('@/lib/deliveries/scheduler');

beforeAll(async () => {
  pgServer = await startPostgres();
  if (!pgServer) return;
  sandbox = createSandbox({ now: () => NOW, rateLimit: null });
  const upstream = await sandbox.listen(0);
  dataDir = await mkdtemp(path.join(tmpdir(), 'outage-'));
  root = path.join(dataDir, 'out');
  Object.assign(process.env, {
    DATABASE_URL: await pgServer.createDatabase('outage'),
    PORTAL_DATA_DIR: dataDir,
    PORTAL_USERS_FILE: path.join(dataDir, 'none.json'),
    PICKS_API_BASE_URL: upstream,
    PICKS_API_KEY: KEY,
    DELIVERY_ROOT: root,
    DELIVERY_SECRET_KEY: 'a-test-delivery-secret-key-0123456789',
  });
  db = (await (await import('@/lib/store')).getStore()).db;
  store = await import('@/lib/store/deliveries');
  scheduler = await import('@/lib/deliveries/scheduler');
  ctx = { db, instance: 'a', settings: { root, secretKey: process.env.DELIVERY_SECRET_KEY!, allowPrivate: true } };
}, 120_000);
afterAll(async () => {
  if (!pgServer) return;
  await (await import('@/lib/store')).closeStore();
  await sandbox.close();
  pgServer.destroy();
});

const needPg = () => needPostgres(pgServer, 'the store outage tests');

const newDelivery = deliveryMaker(
  () => db,
  (n) => ({
    name: `Outage ${n}`,
    kind: 'picks',
    format: 'csv',
    filters: { from: 'today-3d', to: 'today+4d' },
    destination: { type: 'directory', folder: `team/${n}` },
  }),
  { now: NOW },
);

const audit = async () => import('@/lib/store/audit');
const runsOf = async (deliveryId: string) => store.listRuns(db, deliveryId);

describe('the store goes away', () => {
  it('while a webhook run places its file: the outcome is kept, written on return, once; one file, one audit entry', async () => {
    needPg();
    const { sealSecret, secretBinding } = await import('@/lib/deliveries/secrets');
    let received = 0;
    let bytes = 0;
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received += 1;
        bytes = Buffer.concat(chunks).length;
        // The store goes away as the file arrives, and comes back 6 s later.
        pgServer!.stop();
        setTimeout(() => pgServer!.start(), 6_000);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const delivery = await newDelivery({
        destination: { type: 'webhook', url },
        secret: sealSecret('whsec-outage-0123456789', process.env.DELIVERY_SECRET_KEY!, secretBinding({ type: 'webhook', url })!),
      });
      const run = await scheduler.runNow(ctx, delivery);
      await run.done;
      expect(received).toBe(1);
      const runs = await runsOf(delivery.id);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        id: run.id,
        outcome: 'complete',
        bytes,
        error: null,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(runs[0]!.records).toBeGreaterThan(100);
      const entries = await (await audit()).latestAudit(db, { actor: `delivery:${delivery.name}` }, 10);
      expect(entries.map((e) => [e.action, e.outcome, e.sha256])).toEqual([['delivery.run', 'complete', runs[0]!.sha256]]);
      expect((await (await audit()).verifyAudit(db)).ok).toBe(true);
      const { metrics } = await import('@/lib/metrics');
      const counted = await metrics().registry.getSingleMetricAsString('portal_delivery_run_duration_seconds');
      expect(counted).toMatch(/portal_delivery_run_duration_seconds_count\{outcome="complete"\} 1\b/);
    } finally {
      receiver.close();
    }
  }, 90_000);

  it('a run still running here is never taken for crashed by its own instance, whatever its lease says', async () => {
    needPg();
    const { runningHere } = await import('@/lib/deliveries/kept');
    const delivery = await newDelivery();
    const id = 'run_ffff0000111122223333';
    await store.claimRun(db, {
      id,
      deliveryId: delivery.id,
      dueMs: null,
      trigger: 'manual',
      attempt: 1,
      instance: 'a',
      now: NOW - 600_000,
      leaseMs: 1,
    });
    runningHere().add(id);
    expect(await store.reapCrashedRuns(db, Date.now(), runningHere())).toEqual([]);
    runningHere().delete(id);
    expect((await store.reapCrashedRuns(db, Date.now(), runningHere())).map((r) => r.id)).toEqual([id]);
  });

  it('a run that crashed after placing its file is recorded complete from its manifest, and not delivered again', async () => {
    needPg();
    const delivery = await newDelivery();
    const run = await scheduler.runNow(ctx, delivery);
    await run.done;
    const [done] = await runsOf(delivery.id);
    expect(done).toMatchObject({ outcome: 'complete' });
    // As if its instance died between placing and recording: the row still running, its lease run out.
    await db
      .updateTable('delivery_runs')
      .set({ outcome: 'running', file: null, sha256: null, records: null, finished_at: null, lease_expires: 0 })
      .where('id', '=', run.id)
      .execute();
    const started = await scheduler.checkDue(ctx);
    await Promise.all(started);
    const runs = await runsOf(delivery.id);
    expect(runs.map((r) => r.id)).toEqual([run.id]);
    expect(runs[0]).toMatchObject({ outcome: 'complete', file: done!.file, sha256: done!.sha256, records: done!.records });
    expect(runs[0]!.error).toMatch(/recorded from the file’s manifest/);
    const folder = path.join(root, folderOf(delivery));
    expect((await readdir(folder)).sort()).toEqual([
      path.basename(done!.file!),
      `${path.basename(done!.file!)}.manifest.json`,
      `${path.basename(done!.file!)}.manifest.jws`,
    ]);
  }, 60_000);

  it('audit entries kept while it is away are written in order when it answers, the chain intact; through a stop too', async () => {
    needPg();
    const { recordAudit } = await import('@/lib/audit/record');
    const outbox = await import('@/lib/audit/outbox');
    const { latestAudit, verifyAudit } = await audit();
    pgServer!.stop();
    try {
      for (const n of [1, 2, 3])
        expect(await recordAudit({ actor: `kept-${n}@example.com`, action: 'sign-out', outcome: 'complete' })).toBeNull();
      expect(outbox.keptAuditEntries()).toBe(3);
    } finally {
      pgServer!.start();
    }
    // The retry in the background may be between two tries: ask until the store has taken them all.
    for (let tries = 0; outbox.keptAuditEntries() > 0 && tries < 20; tries += 1) {
      await outbox.flushAuditEntries();
      if (outbox.keptAuditEntries() > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(outbox.keptAuditEntries()).toBe(0);
    const written = (await latestAudit(db, { action: 'sign-out' }, 10)).reverse().map((e) => e.actor);
    expect(written).toEqual(['kept-1@example.com', 'kept-2@example.com', 'kept-3@example.com']);

    // Stopping with entries still kept: saved to the data directory, written by the next start.
    pgServer!.stop();
    try {
      for (const n of [4, 5]) await recordAudit({ actor: `kept-${n}@example.com`, action: 'sign-out', outcome: 'complete' });
      await outbox.saveKeptAuditEntries(dataDir, 'instance-a');
    } finally {
      pgServer!.start();
    }
    const saved = (await readdir(dataDir)).filter((name) => name.startsWith('audit-pending-'));
    expect(saved).toHaveLength(1);
    expect((await readFile(path.join(dataDir, saved[0]!), 'utf8')).trim().split('\n')).toHaveLength(2);
    expect(await outbox.importSavedAuditEntries(dataDir)).toBe(2);
    expect((await readdir(dataDir)).filter((name) => name.startsWith('audit-pending-'))).toEqual([]);
    const all = (await latestAudit(db, { action: 'sign-out' }, 10)).reverse().map((e) => e.actor);
    expect(all).toEqual([1, 2, 3, 4, 5].map((n) => `kept-${n}@example.com`));
    expect((await verifyAudit(db)).ok).toBe(true);
  }, 60_000);

  it('during an export: the file is sent whole, and its audit entry, kept meanwhile, is written once on return', async () => {
    needPg();
    const { exportResponse } = await import('@/lib/http/export');
    const { latestAudit, verifyAudit } = await audit();
    const { flushAuditEntries, keptAuditEntries } = await import('@/lib/audit/outbox');
    const who = { email: 'exporter@example.com', role: 'editor' };
    const res = await exportResponse('picks', new Request('http://portal.test/api/export/picks?format=csv&from=2000-01-01T00:00:00Z'), who);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [(await reader.read()).value!];
    pgServer!.stop(); // the store goes away mid-export; the upstream does not
    try {
      for (let part = await reader.read(); !part.done; part = await reader.read()) chunks.push(part.value);
      expect(keptAuditEntries()).toBe(1);
    } finally {
      pgServer!.start();
    }
    const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n');
    for (let tries = 0; keptAuditEntries() > 0 && tries < 20; tries += 1) {
      await flushAuditEntries();
      if (keptAuditEntries() > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const entries = await latestAudit(db, { actor: who.email }, 10);
    expect(entries.map((e) => [e.action, e.outcome, e.records])).toEqual([['export.picks', 'complete', lines.length - 1]]);
    expect(lines.length - 1).toBeGreaterThan(500);
    expect((await verifyAudit(db)).ok).toBe(true);
  }, 60_000);

  it('a poll it breaks records nothing, and the next one completes', async () => {
    needPg();
    const { pollOnce } = await import('@/lib/changes/poller');
    const { claimFeedLease, readFeed } = await import('@/lib/store/change-feed');
    const { picksApi } = await import('@/lib/picks-api');
    const settings = { daysBack: 7, daysAhead: 14, pollMs: 300_000 };
    expect(await claimFeedLease(db, 'a', 3_600_000)).toBe(true);
    let seen = 0;
    const breaking: import('@/lib/changes/poller').WalkPicks = (filters, call) => ({
      async *[Symbol.asyncIterator]() {
        for await (const pick of picksApi().walkPicks(filters, call)) {
          seen += 1;
          if (seen === 50) pgServer!.stop();
          yield pick;
        }
      },
    });
    try {
      const broken = await pollOnce({ db, walk: breaking, instance: 'a', settings });
      expect(broken.outcome).toBe('failed');
    } finally {
      pgServer!.start();
    }
    expect((await readFeed(db)).completeMs).toBeNull();
    expect(await db.selectFrom('watched').select(db.fn.countAll().as('n')).executeTakeFirst()).toEqual({ n: 0 });
    const again = await pollOnce({ db, walk: (filters, call) => picksApi().walkPicks(filters, call), instance: 'a', settings });
    expect(again).toMatchObject({ outcome: 'complete' });
    expect(again.outcome === 'complete' && again.watched).toBeGreaterThan(50);
    expect((await readFeed(db)).completeMs).not.toBeNull();
  }, 60_000);
});
