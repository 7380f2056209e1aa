import { createHash } from 'node:crypto';
import { latestAlerts } from '@/lib/store/alerts';
import { readdir, readFile, mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenForAlerts } from '@/lib/alerts/listen';
import type { SchedulerContext } from '@/lib/deliveries/scheduler';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { createFaultProxy } from '../support/fault-proxy';
import { receiverAccepts } from '../support/webhook-signature';
import { runVerifier, writeTestKeys } from '../support/proof';
import { deliveryMaker, folderOf } from '../support/new-delivery';

/**
 * Scheduled deliveries against the sandbox over real HTTP (through a fault proxy, to break a run mid-way),
 * on the embedded store: a run into a directory compared record for record with a direct walk, its
 * manifest and audit entry; a failure that leaves nothing; three failures pausing; a due time run once
 * by two instances; a missed stretch run once; a crashed run retried once; `changes` deliveries picking
 * up where the last run ended; a webhook whose signature the receiver checks.
 */

const NOW = Date.now();
const KEY = 'sandbox-full-key';
let sandbox: Sandbox;
const proxy = { ...createFaultProxy('http://placeholder') };
let faults: ReturnType<typeof createFaultProxy>;
let proxyUrl = '';
let root = '';
let ctx: SchedulerContext;
let api: typeof import('@/lib/deliveries/scheduler');
let store: typeof import('@/lib/store/deliveries');
let db: Awaited<ReturnType<(typeof import('@/lib/store'))['getStore']>>['db'];

beforeAll(async () => {
  listenForAlerts(); // as lib/start/portal.ts does: a run's end queues its alert
  sandbox = createSandbox({ now: () => NOW, rateLimit: null });
  const upstream = await sandbox.listen(0);
  faults = createFaultProxy(upstream);
  void proxy;
  proxyUrl = await faults.listen(0);
  const dir = await mkdtemp(path.join(tmpdir(), 'deliveries-'));
  root = path.join(dir, 'out');
  Object.assign(process.env, {
    DATABASE_URL: '',
    PORTAL_DATA_DIR: dir,
    PORTAL_USERS_FILE: path.join(dir, 'none.json'),
    PICKS_API_BASE_URL: proxyUrl,
    PICKS_API_KEY: KEY,
    PICKS_API_MAX_RETRIES: '0',
    DELIVERY_ROOT: root,
    DELIVERY_SECRET_KEY: 'a-test-delivery-secret-key-0123456789',
  });
  const { getStore } = await import('@/lib/store');
  db = (await getStore()).db;
  api = await import('@/lib/deliveries/scheduler');
  store = await import('@/lib/store/deliveries');
  ctx = { db, instance: 'a', settings: { root, secretKey: process.env.DELIVERY_SECRET_KEY!, allowPrivate: true } };
});
afterAll(async () => {
  await (await import('@/lib/store')).closeStore();
  await faults.close();
  await sandbox.close();
});
beforeEach(() => fetch(`${proxyUrl}/__faults`, { method: 'DELETE' }));

const newDelivery = deliveryMaker(
  () => db,
  (n) => ({
    name: `Morning ${n}`,
    kind: 'picks',
    format: 'json',
    filters: { sport: 'Tennis', from: 'today-3d', to: 'today+4d' },
    destination: { type: 'directory', folder: `team/${n}` },
  }),
  { now: NOW },
);

async function walk(filters: Record<string, string>): Promise<string[]> {
  const { createPicksClient } = await import('@/lib/picks-api/client');
  const client = createPicksClient({ baseUrl: proxyUrl, apiKey: KEY });
  const ids: string[] = [];
  for await (const pick of client.walkPicks(filters)) ids.push(pick.id!);
  return ids;
}

const auditOf = async (name: string) => (await import('@/lib/store/audit')).latestAudit(db, { actor: `delivery:${name}` }, 10);

describe('a run into a directory', () => {
  it('writes the whole filtered set, record for record, with a manifest whose sha256 matches, and audits it', async () => {
    const delivery = await newDelivery();
    const run = await api.runNow(ctx, delivery);
    await run.done;
    const [result] = await store.listRuns(db, delivery.id);
    expect(result).toMatchObject({ id: run.id, outcome: 'complete', trigger: 'manual', error: null });
    const folder = path.join(root, folderOf(delivery));
    const names = (await readdir(folder)).sort();
    expect(names).toEqual([
      path.basename(result!.file!),
      `${path.basename(result!.file!)}.manifest.json`,
      `${path.basename(result!.file!)}.manifest.jws`,
    ]);
    expect(names[0]).toMatch(/^morning-\d+-picks-\d{8}T\d{6}Z-[a-f0-9]{6}\.json$/);
    const bytes = await readFile(path.join(folder, names[0]!));
    const manifest = JSON.parse(await readFile(path.join(folder, names[1]!), 'utf8'));
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(manifest).toMatchObject({
      records: result!.records,
      bytes: bytes.length,
      sha256: sha,
      kind: 'picks',
      licence: expect.any(String),
    });
    expect(result!.sha256).toBe(sha);
    const delivered = (JSON.parse(bytes.toString()) as { data: { id: string }[] }).data.map((p) => p.id);
    const expected = await walk(manifest.resolvedFilters);
    expect(expected.length).toBeGreaterThan(20);
    expect(delivered).toEqual(expected);
    expect(manifest.resolvedFilters.from).toBe(new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 3 * 86_400_000).toISOString());
    const [entry] = await auditOf(delivery.name);
    expect(entry).toMatchObject({ action: 'delivery.run', outcome: 'complete', sha256: sha, records: expected.length });
    expect(entry!.proof).toEqual({
      recordIds: manifest.recordIds,
      filtersResolved: expect.any(Object),
      dataAsOf: manifest.dataAsOf,
      licence: manifest.licenceAttestation,
    });
    // A recipient checks it with the public key alone: signature, bytes, sha256, records and their ids.
    const checked = await runVerifier([path.join(folder, names[0]!), '--keys', await writeTestKeys(path.join(root, 'keys.json'))]);
    expect(checked.out).toContain(`ok   records: ${expected.length}`);
    expect(checked.out).toContain('licence attestation: inside');
    expect(checked.code).toBe(0);
  });

  it('writes JSON Lines too: the same records, a line each, and the file verifies', async () => {
    const lines = await newDelivery({ format: 'jsonl' });
    await (
      await api.runNow(ctx, lines)
    ).done;
    const [result] = await store.listRuns(db, lines.id);
    expect(result).toMatchObject({ outcome: 'complete', error: null });
    expect(result!.file).toMatch(/\.jsonl$/);
    const file = path.join(root, folderOf(lines), path.basename(result!.file!));
    const text = await readFile(file, 'utf8');
    const manifest = JSON.parse(await readFile(`${file}.manifest.json`, 'utf8'));
    const ids = text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toEqual(await walk(manifest.resolvedFilters));
    expect(manifest).toMatchObject({ records: ids.length, bytes: Buffer.byteLength(text) });
    const keys = await writeTestKeys(path.join(root, 'keys.json'));
    const checked = await runVerifier([file, '--keys', keys]);
    expect(checked.out).toContain(`ok   records: ${ids.length}`);
    expect(checked.code).toBe(0);
  });

  it('writes Parquet: DuckDB reads the delivered records, and the verifier checks its size and sha256', async () => {
    const delivery = await newDelivery({ format: 'parquet' });
    await (
      await api.runNow(ctx, delivery)
    ).done;
    const [result] = await store.listRuns(db, delivery.id);
    expect(result).toMatchObject({ outcome: 'complete', error: null });
    const file = path.join(root, folderOf(delivery), path.basename(result!.file!));
    expect(file).toMatch(/\.parquet$/);
    const manifest = JSON.parse(await readFile(`${file}.manifest.json`, 'utf8'));
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const ids = (await duck.runAndReadAll(`select id from read_parquet('${file}')`)).getRowObjectsJS().map((r) => r.id);
    expect(ids).toEqual(await walk(manifest.resolvedFilters));
    expect(manifest).toMatchObject({ records: ids.length, bytes: (await readFile(file)).length });
    const checked = await runVerifier([file, '--keys', await writeTestKeys(path.join(root, 'keys.json'))]);
    expect(checked.out).toContain(`note records: ${ids.length} by the signed manifest`);
    expect(checked.code).toBe(0);
  });

  it('leaves nothing when the upstream fails mid-way, records the error, and pauses after three failures in a row', async () => {
    const delivery = await newDelivery({ filters: {} });
    await fetch(`${proxyUrl}/__faults`, {
      method: 'POST',
      body: JSON.stringify([{ path: '/api/v1/picks', from: 3, status: 500, body: '{}' }]),
    });
    for (let i = 0; i < 3; i += 1) await (await api.runNow(ctx, (await store.findDelivery(db, delivery.id))!)).done;
    const runs = await store.listRuns(db, delivery.id);
    expect(runs.map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed']);
    expect(runs[0]!.error).toMatch(/^UPSTREAM_ERROR/);
    expect(runs[0]!.file).toBeNull();
    await expect(readdir(path.join(root, folderOf(delivery)))).rejects.toThrow(/ENOENT/);
    const after = (await store.findDelivery(db, delivery.id))!;
    expect(after).toMatchObject({ paused: true, failures: 3 });
    expect(after.pauseReason).toMatch(/Paused after 3 failed runs in a row/);
    expect((await auditOf(delivery.name))[0]).toMatchObject({ outcome: 'failed', errorCode: 'UPSTREAM_ERROR' });
    // Each failure is an alert, the third one saying the delivery paused (lib/alerts).
    const alerts = (await latestAlerts(db)).filter((x) => x.sport === `delivery ${delivery.name}`);
    expect(alerts.map((x) => [x.kind, x.status])).toEqual([
      ['delivery.paused', 'held'],
      ['delivery.failed', 'held'],
      ['delivery.failed', 'held'],
    ]);
    expect(alerts[0]!.reason).toMatch(/^Paused after 3 failed runs in a row: UPSTREAM_ERROR/);
  });
});

describe('the schedule', () => {
  it('runs a due time once across two instances, and a missed stretch once, not once per slot', async () => {
    const delivery = await newDelivery({ schedule: '* * * * *', lastDueMs: Date.now() - 10 * 60_000 });
    const other = { ...ctx, instance: 'b' };
    const started = (await Promise.all([api.checkDue(ctx), api.checkDue(other)])).flat();
    await Promise.all(started);
    const runs = await store.listRuns(db, delivery.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'schedule', outcome: 'complete', dueMs: Math.floor(Date.now() / 60_000) * 60_000 });
    // Checked again within the same minute: nothing more is due.
    await Promise.all(await api.checkDue(other));
    expect(await store.listRuns(db, delivery.id)).toHaveLength(1);
  });

  it('starts a changed schedule from now: a due time of it before the change is not run as missed', async () => {
    const delivery = await newDelivery({ schedule: '0 0 1 1 *', lastDueMs: Date.now() - 3 * 3_600_000 });
    const { patchResponse } = await import('@/lib/http/deliveries');
    const request = new Request('http://portal.test/api/deliveries', {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ schedule: '0 * * * *' }),
    });
    const res = await patchResponse(delivery.id, request, { email: 'ana@example.com', role: 'editor', name: null } as never);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ schedule: '0 * * * *', scheduleInWords: 'Every hour (UTC)' });
    await Promise.all(await api.checkDue(ctx));
    expect(await store.listRuns(db, delivery.id)).toEqual([]);
  });

  it('retries a crashed run once, and only once', async () => {
    const delivery = await newDelivery();
    const t = Date.now();
    await store.claimRun(db, {
      id: 'run_crashed1',
      deliveryId: delivery.id,
      dueMs: t - 60_000,
      trigger: 'schedule',
      attempt: 1,
      instance: 'gone',
      now: t - 120_000,
      leaseMs: 1,
    });
    await Promise.all(await api.checkDue(ctx));
    const runs = await store.listRuns(db, delivery.id);
    expect(runs.map((r) => [r.trigger, r.attempt, r.outcome])).toEqual([
      ['retry', 2, 'complete'],
      ['schedule', 1, 'failed'],
    ]);
    expect(runs[1]!.error).toMatch(/stopped before it finished/);
    await store.claimRun(db, {
      id: 'run_crashed2',
      deliveryId: delivery.id,
      dueMs: t - 30_000,
      trigger: 'retry',
      attempt: 2,
      instance: 'gone',
      now: t - 120_000,
      leaseMs: 1,
    });
    await Promise.all(await api.checkDue(ctx));
    expect((await store.listRuns(db, delivery.id)).filter((r) => r.trigger === 'retry')).toHaveLength(2); // the second crash is not retried
  });
});

describe('a changes delivery', () => {
  it('delivers the entries since the previous successful run, each once', async () => {
    const { claimFeedLease } = await import('@/lib/store/change-feed');
    const { applyPoll } = await import('@/lib/store/changes');
    await claimFeedLease(db, 'feed', 86_400_000);
    const entry = (id: string) => ({ id, kinds: ['status' as const], display: { sport: 'Tennis' }, before: null, after: null });
    const poll = (at: number, ids: string[]) =>
      applyPoll(
        db,
        { entries: ids.map(entry), upserts: [], removals: [] },
        { instance: 'feed', now: at, window: { from: 'a', to: 'b' }, watched: 0, requests: 0 },
      );
    const delivery = await newDelivery({
      kind: 'changes',
      format: 'csv',
      filters: {},
      createdAt: new Date(Date.now() - 60_000).toISOString(),
    });
    await poll(Date.now() - 120_000, ['before-creation']);
    await poll(Date.now() - 30_000, ['c1', 'c2']);
    await (
      await api.runNow(ctx, delivery)
    ).done;
    await poll(Date.now() - 10_000, ['c3']);
    await (
      await api.runNow(ctx, (await store.findDelivery(db, delivery.id))!)
    ).done;
    const runs = await store.listRuns(db, delivery.id);
    expect(runs.map((r) => [r.outcome, r.records])).toEqual([
      ['complete', 1],
      ['complete', 2],
    ]);
    const files = runs.map((r) => r.file!).reverse();
    const ids = await Promise.all(
      files.map(async (f) =>
        (await readFile(path.join(root, f), 'utf8'))
          .trim()
          .split('\r\n')
          .slice(1)
          .map((l) => l.split(',')[2]),
      ),
    );
    expect(ids).toEqual([['c1', 'c2'], ['c3']]);
  });
});

describe('a webhook delivery', () => {
  it('posts the file once it is complete, signed; the receiver checks the signature; 5xx is retried', async () => {
    const { sealSecret, secretBinding } = await import('@/lib/deliveries/secrets');
    const secret = 'whsec-0123456789abcdef';
    const received: { body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
    let answered = 0;
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      answered += 1;
      if (answered === 1) return void res.writeHead(503).end();
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const delivery = await newDelivery({
        format: 'csv',
        destination: { type: 'webhook', url },
        secret: sealSecret(secret, process.env.DELIVERY_SECRET_KEY!, secretBinding({ type: 'webhook', url })!),
      });
      await (
        await api.runNow(ctx, delivery)
      ).done;
      const [run] = await store.listRuns(db, delivery.id);
      expect(run).toMatchObject({ outcome: 'complete' });
      expect(answered).toBe(2);
      const [got] = received;
      expect(receiverAccepts(secret, got!.headers, got!.body)).toBe(true);
      // The headers are signed with the body: another file's name or manifest, or another delivery, fails the check.
      for (const header of ['x-picks-file', 'x-picks-manifest', 'x-picks-delivery', 'x-picks-timestamp'])
        expect(receiverAccepts(secret, { ...got!.headers, [header]: `${String(got!.headers[header])}x` }, got!.body), header).toBe(false);
      expect(receiverAccepts(secret, got!.headers, Buffer.concat([got!.body, Buffer.from(' ')]))).toBe(false);
      expect(createHash('sha256').update(got!.body).digest('hex')).toBe(run!.sha256);
      const manifestBytes = Buffer.from(String(got!.headers['x-picks-manifest']), 'base64url');
      expect(JSON.parse(manifestBytes.toString())).toMatchObject({ sha256: run!.sha256, records: run!.records });
      // What a receiver keeps of it (body, manifest, JWS) verifies with the public key alone.
      const kept = path.join(root, `hook-${run!.id}.csv`);
      await writeFile(kept, got!.body);
      await writeFile(`${kept}.manifest.json`, manifestBytes);
      await writeFile(`${kept}.manifest.jws`, String(got!.headers['x-picks-manifest-jws']));
      const checked = await runVerifier([kept, '--keys', await writeTestKeys(path.join(root, 'keys.json'))]);
      expect(checked.out).toContain(`ok   records: ${run!.records}`);
      expect(checked.code).toBe(0);
      expect(JSON.stringify(got!.headers)).not.toContain(secret);
    } finally {
      server.close();
    }
  }, 30_000);
});
