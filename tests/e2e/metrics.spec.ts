import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { needPostgres, startPostgres, type TestPostgres } from '../support/postgres';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, e2eDay, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance, logFd } from '../support/instances';
import { startSandboxProcess } from '../support/sandbox-process';
import { sessionCookie } from '../support/session';
import { startStaffPortal } from '../support/staff-portal';

/**
 * Metrics as an operations team reads them: a real Prometheus (Debian's package, started here on a free
 * loopback port) scrapes two instances on one PostgreSQL with their bearer token. After scripted page views
 * on A, an export and a failed export on B and a poll, Prometheus's own HTTP API gives the expected counts per
 * instance. /metrics refuses a session cookie and no token, and holds no key, email or filter value.
 */

const SANDBOX_PORT = 4234;
const PORTS = [3230, 3231] as const;
const TOKEN = 'metrics-spec-token-0123456789abcdef';
const PROMETHEUS = '/usr/bin/prometheus';
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let pgServer: TestPostgres | null = null;
let prometheus: ChildProcess | undefined;
let promUrl = '';
const instances: Instance[] = [];

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** One value per instance of a PromQL expression, keyed by the scraped port. */
async function query(expr: string): Promise<Record<string, number>> {
  const res = await fetch(`${promUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  const body = (await res.json()) as { data: { result: { metric: { instance: string }; value: [number, string] }[] } };
  return Object.fromEntries(body.data.result.map((r) => [r.metric.instance.split(':')[1]!, Number(r.value[1])]));
}

/** Skips the test saying PostgreSQL is missing, or in CI (where .ci/run installs it) fails it. */
const needPg = () => needPostgres(pgServer, 'the metrics test', (why) => test.skip(true, why));

/** Without Debian's prometheus the test says it was skipped; in CI, where .ci/run installs it, it fails instead. */
const prometheusMissing = !existsSync(PROMETHEUS);
if (prometheusMissing && process.env.CI) throw new Error(`${PROMETHEUS} is missing: .ci/run installs Debian's prometheus`);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  if (prometheusMissing) return;
  pgServer = await startPostgres();
  if (!pgServer) return;
  sandbox = await startSandboxProcess(SANDBOX_PORT, { SANDBOX_TEST_HOOKS: '1', SANDBOX_PICKS: '2000' });
  const url = await pgServer.createDatabase('metrics');
  for (const port of PORTS)
    instances.push(
      await startStaffPortal(port, {
        roles: ['admin', 'editor', 'viewer'],
        env: {
          ...upstreamEnv(sandbox.url, E2E.sandboxKey),
          DATABASE_URL: url,
          AUTH_SECRET: 'metrics-spec-secret-0123456789-abcdef',
          PICKS_API_MAX_RETRIES: '0',
          CHANGES_POLL_SECONDS: '3600', // this spec asks for its one poll itself
          METRICS_TOKEN: TOKEN,
        },
      }),
    );
  const dir = mkdtempSync(path.join(tmpdir(), 'prometheus-'));
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: portal',
      '    authorization:',
      `      credentials: ${TOKEN}`,
      '    static_configs:',
      `      - targets: [${PORTS.map((p) => `'127.0.0.1:${p}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', logFd('prometheus')] },
  );
  await waitUntil(async () => (await fetch(`${promUrl}/-/ready`)).ok, 'Prometheus', 60_000);
});

test.afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    prometheus.kill('SIGTERM');
    await once(prometheus, 'exit');
  }
  await Promise.all(instances.map((i) => i.stop()));
  await sandbox?.stop();
  pgServer?.destroy();
});

test('Prometheus scrapes both instances and finds the page views, exports, a failed export and a poll of each', async () => {
  test.setTimeout(120_000);
  test.skip(prometheusMissing, 'SKIPPED: Prometheus is not installed (apt-get install -y prometheus)');
  needPg();
  const [a, b] = instances as [Instance, Instance];
  const [A, B] = PORTS.map(String) as [string, string];

  // /metrics: a bearer of the token only; a session is not enough.
  const viewerA = await sessionCookie(a.origin, 'viewer');
  expect((await fetch(`${a.origin}/metrics`)).status).toBe(401);
  expect((await fetch(`${a.origin}/metrics`, { headers: { cookie: await sessionCookie(a.origin, 'admin') } })).status).toBe(401);

  const window = `from=${e2eDay(-400)}T00:00:00Z&to=${e2eDay(400)}T00:00:00Z`;
  for (let i = 0; i < 5; i += 1)
    expect((await fetch(`${a.origin}/picks?${window}&limit=50`, { headers: { cookie: viewerA } })).status).toBe(200);
  const editorB = await sessionCookie(b.origin, 'editor');
  const exported = await fetch(`${b.origin}/api/export/picks?${window}&format=csv&sport=Tennis`, { headers: { cookie: editorB } });
  expect(exported.status).toBe(200);
  const rows = (await exported.text()).trim().split('\n').length - 1;
  await fetch(`${sandbox!.url}/__sandbox/answers`, { method: 'POST', body: JSON.stringify({ status: 503, count: 1 }) });
  expect((await fetch(`${b.origin}/api/export/picks?${window}&format=csv`, { headers: { cookie: editorB } })).status).toBe(502);
  const adminA = await sessionCookie(a.origin, 'admin');
  expect(
    (await fetch(`${a.origin}/api/changes/poll`, { method: 'POST', headers: { cookie: adminA, origin: a.origin } })).status,
  ).toBeLessThan(300);

  const text = await (await fetch(`${a.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  expect(text).toContain('portal_http_requests_total{route="/picks",method="GET",status="200"} 5');
  for (const secret of [E2E.sandboxKey, STAFF.viewer.email, STAFF.admin.email, 'Tennis', TOKEN]) expect(text).not.toContain(secret);

  await expect
    .poll(async () => (await query('portal_feed_polls_total{outcome="complete"}'))[A] ?? 0, { timeout: 60_000 })
    .toBeGreaterThanOrEqual(1);
  await expect.poll(async () => (await query('portal_exports_total{outcome="failed"}'))[B], { timeout: 30_000 }).toBe(1);
  expect(await query('sum by (instance) (portal_http_requests_total{route="/picks",status="200"})')).toEqual({ [A]: 5 });
  expect(await query('portal_exports_total{kind="picks",outcome="complete"}')).toEqual({ [B]: 1 });
  expect(await query('portal_export_records_total{kind="picks"}')).toEqual({ [B]: rows });
  expect((await query('portal_upstream_requests_total{endpoint="/picks",outcome="5xx"}'))[B]).toBe(1);
  expect((await query('sum by (instance) (portal_sign_ins_total{outcome="complete"})'))[A]).toBeGreaterThanOrEqual(2);
  expect(Object.keys(await query('portal_process_nodejs_heap_size_total_bytes')).sort()).toEqual([A, B]);
  // The feed as the store says: exactly one instance holds the lease, and both see the same last complete poll.
  const held = await query('portal_feed_lease_held');
  expect((held[A] ?? 0) + (held[B] ?? 0)).toBe(1);
  const since = await query('portal_feed_seconds_since_complete_poll');
  for (const port of [A, B]) expect(since[port]).toBeLessThan(600);
  expect((await query('portal_store_query_duration_seconds_count'))[A]).toBeGreaterThan(10);
  expect((await query('sum by (instance) (portal_upstream_gate_wait_seconds_count)'))[B]).toBeGreaterThanOrEqual(rows > 0 ? 2 : 1);
  expect(await query('portal_upstream_gate{state="queued"}')).toEqual({ [A]: 0, [B]: 0 });
  expect(await query('portal_walks_running')).toEqual({ [A]: 0, [B]: 0 });
  // What bench:soak reads: durations by class of route, gate waits by lane, walk slots held, waits that hit their bound.
  const byClass = (c: string) => query(`sum by (instance) (portal_http_class_request_duration_seconds_count{class="${c}"})`);
  expect((await byClass('page'))[A]).toBeGreaterThanOrEqual(5);
  expect((await byClass('export'))[B]).toBe(2);
  expect(await query('portal_http_class_request_duration_seconds_count{class="export",failed="true"}')).toEqual({ [B]: 1 });
  expect((await query('portal_upstream_gate_wait_seconds_count{lane="page"}'))[A]).toBeGreaterThanOrEqual(5);
  expect((await query('portal_upstream_gate_wait_seconds_count{lane="bulk"}'))[B]).toBeGreaterThanOrEqual(rows > 0 ? 2 : 1);
  expect(await query('portal_walk_slots_in_use')).toEqual({ [A]: 0, [B]: 0 });
  expect(await query('portal_waits_bounded_total{wait="store"}')).toEqual({ [A]: 0, [B]: 0 });
});
