import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { createFaultProxy } from '../support/fault-proxy';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance, logFd } from '../support/instances';
import { startSandboxProcess } from '../support/sandbox-process';
import { startStaffPortal } from '../support/staff-portal';

/**
 * The deployment docs/deployment.md describes, run as written: Debian's nginx with docs/deploy/nginx.conf
 * (only its addresses, ports and certificate paths replaced) terminating TLS with a certificate made here, in
 * front of two instances on one PostgreSQL with TRUSTED_PROXIES set to it. Clients connect from different
 * loopback addresses (127.0.0.2, 127.0.0.3): sign-in limits count each by the address nginx saw, whatever
 * X-Forwarded-For it sends; an export streams through without being held back; bodies over the limit stop at
 * nginx; plain HTTP is sent to HTTPS.
 */

const NGINX = '/usr/sbin/nginx';
const SANDBOX_PORT = 4236;
const PORTS = [3233, 3234] as const;
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let pgServer: TestPostgres | null = null;
let nginx: ChildProcess | undefined;
let base = '';
let httpBase = '';
let ca = '';
let proxyUrl = '';
const proxy = createFaultProxy(`http://127.0.0.1:${SANDBOX_PORT}`);
const instances: Instance[] = [];

const nginxMissing = !existsSync(NGINX);
if (nginxMissing && process.env.CI) throw new Error(`${NGINX} is missing: .ci/run installs Debian's nginx`);

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The documented configuration with this test's addresses: each replacement must find its text. */
function renderConfig(httpsPort: number, httpPort: number, cert: string, key: string): string {
  let text = readFileSync('docs/deploy/nginx.conf', 'utf8');
  const swaps: [string, string][] = [
    ['server 127.0.0.1:3000 ', `server 127.0.0.1:${PORTS[0]} `],
    ['server 127.0.0.1:3001 ', `server 127.0.0.1:${PORTS[1]} `],
    ['listen 80;', `listen 127.0.0.1:${httpPort};`],
    ['listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`],
    ['/etc/ssl/certs/picks-portal.crt', cert],
    ['/etc/ssl/private/picks-portal.key', key],
  ];
  for (const [from, to] of swaps) {
    if (!text.includes(from)) throw new Error(`docs/deploy/nginx.conf no longer has "${from}"`);
    text = text.replace(from, to);
  }
  return text;
}

/** fetch from a client at `address` (a loopback address of its own), trusting this test's certificate. */
function clientAt(address: string) {
  const dispatcher = new Agent({ localAddress: address, connect: { ca, servername: 'localhost' } });
  return (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(url, { ...init, dispatcher, redirect: 'manual' });
}

async function signIn(client: ReturnType<typeof clientAt>, email: string, password: string, headers: Record<string, string> = {}) {
  const csrf = await client(`${base}/api/auth/csrf`, { headers });
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await client(`${base}/api/auth/callback/credentials`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie, origin: base, ...headers },
    body: new URLSearchParams({ csrfToken, email, password, json: 'true' }),
  });
  const url = ((await res.json().catch(() => ({}))) as { url?: string }).url ?? '';
  const session = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => /portal\.session=/.test(c));
  return { error: url ? new URL(url, base).searchParams.get('error') : null, cookie: session ? `${cookie}; ${session}` : null };
}

const needServers = () => {
  test.skip(nginxMissing, 'SKIPPED: nginx is not installed (apt-get install -y nginx)');
  if (!pgServer) test.skip(true, postgresMissing('the deployment test'));
};

test.beforeAll(async () => {
  test.setTimeout(240_000);
  if (nginxMissing) return;
  pgServer = await startPostgres();
  if (!pgServer) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'deployment-'));
  const [cert, key] = [path.join(dir, 'portal.crt'), path.join(dir, 'portal.key')];
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr.toString()}`);
  ca = readFileSync(cert, 'utf8');
  const [httpsPort, httpPort] = [await freePort(), await freePort()];
  base = `https://localhost:${httpsPort}`;
  httpBase = `http://localhost:${httpPort}`;

  sandbox = await startSandboxProcess(SANDBOX_PORT, { SANDBOX_PICKS: '6000' });
  proxyUrl = await proxy.listen();
  const url = await pgServer.createDatabase('deployment');
  for (const port of PORTS)
    instances.push(
      await startStaffPortal(port, {
        roles: ['editor', 'viewer'],
        env: {
          ...upstreamEnv(proxyUrl, E2E.sandboxKey),
          PORTAL_IMAGE_ORIGINS: sandbox.url,
          DATABASE_URL: url,
          AUTH_SECRET: 'deployment-spec-secret-0123456789-abcdef',
          NEXTAUTH_URL: base,
          PORTAL_LISTEN_HOST: '127.0.0.1',
          TRUSTED_PROXIES: '127.0.0.1',
          CHANGES_POLL_SECONDS: '3600',
        },
      }),
    );

  writeFileSync(path.join(dir, 'picks-portal.conf'), renderConfig(httpsPort, httpPort, cert, key));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `  ${name}_temp_path ${dir}/${name};`).join('\n');
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\nevents { worker_connections 256; }\nhttp {\n  access_log off;\n${temp}\n  include ${dir}/picks-portal.conf;\n}\n`,
  );
  nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', logFd('nginx')],
  });
  const client = clientAt('127.0.0.1');
  await waitUntil(async () => (await client(`${base}/login`)).status === 200, 'nginx in front of the portals', 30_000);
});

test.afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    nginx.kill('SIGQUIT');
    await once(nginx, 'exit');
  }
  await Promise.all(instances.map((i) => i.stop()));
  await sandbox?.stop();
  await proxy.close();
  pgServer?.destroy();
});

test('TLS in front of two instances: HTTPS only, sign-in limits by client address, exports streamed, bodies capped', async () => {
  test.setTimeout(180_000);
  needServers();
  const first = clientAt('127.0.0.2');
  const second = clientAt('127.0.0.3');

  // HTTPS with the portal's own headers; plain HTTP is sent there.
  const login = await first(`${base}/login`);
  expect(login.status).toBe(200);
  expect(login.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
  expect(login.headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}$/);
  const plain = await first(`${httpBase}/picks?limit=50`);
  expect(plain.status).toBe(301);
  expect(plain.headers.get('location')).toBe('https://localhost/picks?limit=50');

  // 127.0.0.2 sprays accounts until its address is blocked; the X-Forwarded-For it sends changes nothing.
  for (let i = 0; i <= 30; i += 1)
    expect((await signIn(first, `spray-${i}@example.com`, 'guess', { 'X-Forwarded-For': `198.51.100.${i}` })).error).toBe(
      'CredentialsSignin',
    );
  const blocked = await signIn(first, STAFF.editor.email, STAFF.editor.password, { 'X-Forwarded-For': '198.51.100.200' });
  expect(blocked.error).toMatch(/^Too many failed sign-ins from your address/);
  expect(blocked.cookie).toBeNull();
  // 127.0.0.3, another client behind the same proxy, signs in.
  const editor = await signIn(second, STAFF.editor.email, STAFF.editor.password);
  expect(editor.error).toBeNull();
  expect(editor.cookie).not.toBeNull();

  // An export streams through nginx: its first lines arrive while the portal is still walking the upstream
  // (each page of which now takes 150 ms), told by the pages the upstream had served when they arrived.
  await fetch(`${proxyUrl}/__faults`, { method: 'POST', body: JSON.stringify([{ path: '^/api/v1/picks\\?', delayMs: 150 }]) });
  const pagesServed = async () =>
    ((await (await fetch(`${proxyUrl}/__requests`)).json()) as { path: string }[]).filter((r) => r.path.startsWith('/api/v1/picks?'))
      .length;
  await fetch(`${proxyUrl}/__requests`, { method: 'DELETE' }); // the polls' pages are not the export's
  const day = 86_400_000;
  const filters = { from: new Date(Date.now() - 40 * day).toISOString(), to: new Date(Date.now() + 40 * day).toISOString() };
  const exported = await second(`${base}/api/export/picks?${new URLSearchParams({ ...filters, format: 'csv' })}`, {
    headers: { cookie: editor.cookie! },
  });
  expect(exported.status).toBe(200);
  const reader = exported.body!.getReader();
  const head: Uint8Array[] = [];
  let got = 0;
  while (got < 2_000) {
    const { value, done } = await reader.read();
    if (done) break;
    head.push(value);
    got += value.length;
  }
  const pagesAtFirstBytes = await pagesServed();
  let rest = 0;
  let lines = Buffer.concat(head).toString().split('\n').length - 1;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += value.length;
    lines += Buffer.from(value).toString().split('\n').length - 1;
  }
  // The upstream served most of the pages after the first bytes had reached the client: nothing gathered the file first.
  const pagesInAll = await pagesServed();
  expect(pagesInAll).toBeGreaterThan(10);
  expect(pagesAtFirstBytes).toBeLessThan(pagesInAll / 2);
  expect(rest).toBeGreaterThan(got * 10);
  expect(lines).toBeGreaterThan(1_000);
  await fetch(`${proxyUrl}/__faults`, { method: 'DELETE' });

  // A body over the limit stops at nginx, before any instance reads it.
  const big = await second(`${base}/api/deliveries`, {
    method: 'POST',
    headers: { cookie: editor.cookie!, origin: base, 'Content-Type': 'application/json' },
    body: 'x'.repeat(2 * 1024 * 1024),
  });
  expect(big.status).toBe(413);
  expect(big.headers.get('x-request-id')).toBeNull();
  // "Check a file" alone takes a whole file: the same body reaches the portal, which answers it (an editor may not check).
  const file = await second(`${base}/api/proof/check`, {
    method: 'POST',
    headers: { cookie: editor.cookie!, origin: base, 'Content-Type': 'application/octet-stream' },
    body: 'x'.repeat(2 * 1024 * 1024),
  });
  expect(file.status).toBe(403);
  expect(file.headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}$/);
});
