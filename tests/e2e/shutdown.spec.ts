import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createFaultProxy } from '../support/fault-proxy';
import { needPostgres, startPostgres, type TestPostgres } from '../support/postgres';
import { expect, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance } from '../support/instances';
import { startStaffPortal } from '../support/staff-portal';
import { startSandboxProcess } from '../support/sandbox-process';
import { sessionCookie, walkSandbox } from '../support/session';

/**
 * A clean stop (SIGTERM) of one of two instances on one PostgreSQL, as a rolling restart does it: the
 * stopping instance answers health and readiness 503 at once and takes no new request, lets an export
 * already running finish whole (compared record for record with a direct walk, audited complete once),
 * releases the polling lease so the other instance takes it at its next check rather than when the lease
 * runs out, and exits by itself. A delivery run in flight finishes too (one file, recorded and audited once), and
 * a poll in flight is abandoned, recording nothing, the other instance polling instead within seconds. The
 * upstream is slowed by a fault proxy so the export, the run and the poll outlive the signal.
 */

const SANDBOX_PORT = 4233;
const SANDBOX = `http://127.0.0.1:${SANDBOX_PORT}`;
const PORTS = [3225, 3226] as const;
const KEY = E2E.sandboxKey;
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let pgServer: TestPostgres | null = null;
let client: pg.Client;
const proxy = createFaultProxy(SANDBOX);
let proxyUrl = '';
const instances: Instance[] = [];
const root = mkdtempSync(path.join(tmpdir(), 'shutdown-deliveries-'));

const holder = async () =>
  (await client.query<{ holder: string | null; lease_expires: string }>('select holder, lease_expires from change_feed')).rows[0]!;

async function startPortal(port: number, url: string) {
  const instance = await startStaffPortal(port, {
    roles: ['admin', 'editor'],
    env: {
      ...upstreamEnv(proxyUrl, KEY),
      DATABASE_URL: url,
      AUTH_SECRET: 'shutdown-spec-secret-0123456789-abcdef',
      PORTAL_IMAGE_ORIGINS: SANDBOX,
      // A long period: the other instance can take over only because the lease was released (its next check is
      // within 15 s), not because it ran out (75 s).
      CHANGES_POLL_SECONDS: '60',
      CHANGES_DAYS_BACK: '1',
      CHANGES_DAYS_AHEAD: '1',
      SHUTDOWN_GRACE_SECONDS: '60',
      DELIVERY_ROOT: root,
    },
  });
  instances.push(instance);
  return instance;
}

/** Skips the test saying PostgreSQL is missing, or in CI (where .ci/run installs it) fails it. */
const needPg = () => needPostgres(pgServer, 'the graceful stop test', (why) => test.skip(true, why));

test.beforeAll(async () => {
  test.setTimeout(240_000);
  pgServer = await startPostgres();
  if (!pgServer) return;
  sandbox = await startSandboxProcess(SANDBOX_PORT, { SANDBOX_PICKS: '6000' });
  proxyUrl = await proxy.listen();
  const url = await pgServer.createDatabase('shutdown');
  client = new pg.Client({ connectionString: url });
  await client.connect();
  // A first, holding the polling lease before B exists.
  await startPortal(PORTS[0], url);
  await waitUntil(async () => (await holder()).holder !== null, "A's lease", 60_000);
  await startPortal(PORTS[1], url);
});

test.afterAll(async () => {
  await client?.end();
  await Promise.all(instances.map((i) => i.stop()));
  await sandbox?.stop();
  await proxy.close();
  pgServer?.destroy();
});

test('SIGTERM drains an instance: health 503 at once, its running export finishes whole, the other takes the lease', async () => {
  test.setTimeout(180_000);
  needPg();
  const [a, b] = instances as [Instance, Instance];
  const leaseOfA = (await holder()).holder!;
  const day = 86_400_000;
  const filters = { from: new Date(Date.now() - 40 * day).toISOString(), to: new Date(Date.now() + 40 * day).toISOString() };
  const expected = (await walkSandbox(SANDBOX, KEY, 'picks', filters)).map((p) => p.id);
  expect(expected.length).toBeGreaterThan(1000);

  // Each upstream page now takes 300 ms: the export outlives the signal.
  await fetch(`${proxyUrl}/__faults`, { method: 'POST', body: JSON.stringify([{ path: '^/api/v1/picks\\?', delayMs: 300 }]) });
  const editor = await sessionCookie(a.origin, 'editor');
  const res = await fetch(`${a.origin}/api/export/picks?${new URLSearchParams({ ...filters, format: 'json' })}`, {
    headers: { cookie: editor },
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [(await reader.read()).value!];
  // A delivery run and a poll in flight on A too.
  const asEditor = { cookie: editor, origin: a.origin, 'Content-Type': 'application/json' };
  const created = await fetch(`${a.origin}/api/deliveries`, {
    method: 'POST',
    headers: asEditor,
    body: JSON.stringify({
      name: 'At the stop',
      kind: 'picks',
      format: 'csv',
      filters: { from: 'today-5d', to: 'today+5d' },
      schedule: '0 6 * * *',
      destination: { type: 'directory', folder: 'stop' },
    }),
  });
  expect(created.status).toBe(201);
  const deliveryId = ((await created.json()) as { id: string }).id;
  const started = await fetch(`${a.origin}/api/deliveries/${deliveryId}/run`, { method: 'POST', headers: asEditor });
  expect(started.status).toBe(202);
  const runId = ((await started.json()) as { run: { id: string } }).run.id;
  const adminA = await sessionCookie(a.origin, 'admin');
  const polled = await fetch(`${a.origin}/api/changes/poll`, { method: 'POST', headers: { cookie: adminA, origin: a.origin } });
  expect(((await polled.json()) as { poll: string }).poll).toMatch(/^(started|running)$/);

  const signalledAt = Date.now();
  a.signal!('SIGTERM');
  await expect
    .poll(async () => {
      const health = await fetch(`${a.origin}/api/health`).catch(() => null);
      return health && `${health.status} ${((await health.json()) as { status: string }).status}`;
    })
    .toBe('503 draining');
  expect((await fetch(`${a.origin}/api/health/ready`)).status).toBe(503);
  expect((await fetch(`${a.origin}/api/health/live`)).status).toBe(200);
  const refused = await fetch(`${a.origin}/login`);
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('DRAINING');

  for (let part = await reader.read(); !part.done; part = await reader.read()) chunks.push(part.value);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string }[] };
  expect(body.data.map((p) => p.id)).toEqual(expected);
  await a.exited;
  expect(Date.now() - signalledAt).toBeLessThan(60_000);

  // The lease was released on the way out: B holds it at its next check (15 s), not when A's would have run out.
  await fetch(`${proxyUrl}/__faults`, { method: 'DELETE' });
  await waitUntil(
    async () => {
      const now = await holder();
      return now.holder !== null && now.holder !== leaseOfA;
    },
    'B to take the lease',
    25_000,
  );

  const admin = await sessionCookie(b.origin, 'admin');
  const audit = (await (await fetch(`${b.origin}/api/audit?action=export.picks&format=json`, { headers: { cookie: admin } })).json()) as {
    entries: { outcome: string; records: number | null }[];
  };
  expect(audit.entries.map((e) => [e.outcome, e.records])).toEqual([['complete', expected.length]]);

  // The run A had in flight finished before A exited: complete, one file and its manifest, audited once.
  const run = (await client.query('select outcome, records, file, instance from delivery_runs where id = $1', [runId])).rows[0];
  expect(run).toMatchObject({ outcome: 'complete', file: expect.stringMatching(/^stop\//) });
  expect(Number(run.records)).toBeGreaterThan(100);
  expect(readdirSync(path.join(root, 'stop')).sort()).toEqual([
    path.basename(run.file),
    `${path.basename(run.file)}.manifest.json`,
    `${path.basename(run.file)}.manifest.jws`,
  ]);
  expect((await client.query('select count(*)::int as n from delivery_runs where delivery_id = $1', [deliveryId])).rows[0]).toEqual({
    n: 1,
  });
  const runs = (await (await fetch(`${b.origin}/api/audit?action=delivery.run&format=json`, { headers: { cookie: admin } })).json()) as {
    entries: { outcome: string; records: number | null }[];
  };
  expect(runs.entries.map((e) => [e.outcome, e.records])).toEqual([['complete', Number(run.records)]]);

  // The poll A had in flight was abandoned with nothing recorded; B polled instead, completely, within seconds.
  await waitUntil(
    async () => {
      const feed = (await client.query('select polled_by, complete_ms from change_feed')).rows[0];
      return feed.polled_by !== leaseOfA && Number(feed.complete_ms) > signalledAt;
    },
    'B to complete a poll',
    30_000,
  );
});
