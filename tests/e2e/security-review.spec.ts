import { expectDescribed } from '../support/described';
import { mkdtempSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFaultProxy } from '../support/fault-proxy';
import { startSshd, sshdMissing, type TestSshd } from '../support/sshd';
import { receiverAccepts } from '../support/webhook-signature';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { waitUntil, type Instance } from '../support/instances';
import { startStaffPortal } from '../support/staff-portal';
import { hasSession, jsonSignIn, sessionCookie, signOut } from '../support/session';
import { LoginPage } from '../support/pages';

/**
 * The second security review's findings, each tried again over HTTP against a portal of this spec's own
 * (behind a fault proxy): secrets that stay with their destination, run limits, the origin rule, body
 * limits, and sessions ended by a password reset, disable and enable.
 */

const PORT = 3219;
const SPOOL_PORT = 3220;
const SECRET_KEY = 'e2e-review-secret-key-0123456789abcdef';
const ADMIN_HOOK_SECRET = 'whsec-admins-own-2b7c9d1e4f';
const proxy = createFaultProxy(`http://127.0.0.1:${E2E.sandboxPort}`);
const instances: Instance[] = [];
const RESET_ME = { email: 'reset-me@staff.picks.test', password: 'reset-me-first-pass' };

async function startPortal(port: number, proxyUrl: string, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), `review-${port}-`));
  const instance = await startStaffPortal(port, {
    roles: ['admin', 'editor', 'viewer', 'manager'],
    others: [{ ...RESET_ME, role: 'editor' }],
    env: {
      ...upstreamEnv(proxyUrl, E2E.sandboxKey),
      PORTAL_DATA_DIR: dataDir,
      AUTH_SECRET: 'review-spec-secret-0123456789-abcdefgh',
      CHANGES_POLL_SECONDS: '0',
      PICKS_API_MAX_RETRIES: '0',
      DELIVERY_SECRET_KEY: SECRET_KEY,
      DELIVERY_ALLOW_PRIVATE_TARGETS: '1',
      DELIVERY_ROOT: path.join(dataDir, 'out'),
      DELIVERY_MAX_PER_USER: '3',
      MAX_EXPORTS_PER_USER: '1',
      ...env,
    },
  });
  instances.push(instance);
  return instance;
}

type Call = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; json: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
const api =
  (origin: string, cookie: string): Call =>
  async (method, url, body, headers = {}) => {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: { cookie, origin, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    await expectDescribed(origin, cookie, method, url, res, text);
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };

async function runOf(call: Call, id: string, runId: string) {
  let found: Record<string, unknown> | undefined;
  await waitUntil(
    async () => {
      found = ((await call('GET', `/api/deliveries/${id}/runs`)).json.data as Record<string, unknown>[]).find((r) => r.id === runId);
      return found !== undefined && found.outcome !== 'running';
    },
    `run ${runId}`,
    60_000,
  );
  return found!;
}

/** A webhook receiver that keeps what reached it. */
async function receiver() {
  const got: { body: Buffer; headers: http.IncomingHttpHeaders; url: string }[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    got.push({ body: Buffer.concat(chunks), headers: req.headers, url: req.url ?? '' });
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { got, port: (server.address() as AddressInfo).port, close: () => server.close() };
}

let portal: Instance;
let proxyUrl = '';
let admin: Call;
let editor: Call;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  proxyUrl = await proxy.listen(0);
  portal = await startPortal(PORT, proxyUrl);
  admin = api(portal.origin, await sessionCookie(portal.origin, 'admin'));
  editor = api(portal.origin, await sessionCookie(portal.origin, 'editor'));
});
test.afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await proxy.close();
});
test.beforeEach(() => fetch(`${proxyUrl}/__faults`, { method: 'DELETE' }));

test.describe.serial('the second security review, over HTTP', () => {
  test('a stored secret stays with its destination: moved without it, the change is refused and the new target gets nothing', async () => {
    test.setTimeout(120_000);
    const original = await receiver();
    const editors = await receiver();
    // Stands in for the editor's own SFTP server: counts whoever connects to it.
    let trapped = 0;
    const trap = net.createServer((socket) => {
      trapped += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const trapPort = (trap.address() as AddressInfo).port;
    let sshd: TestSshd | null = null;
    try {
      const secretPath = '/in/tok_8c1f0a7d';
      const url = `http://127.0.0.1:${original.port}${secretPath}?sig=abc`;
      const hook = await admin('POST', '/api/deliveries', {
        name: 'Admin hook',
        kind: 'results',
        format: 'csv',
        filters: { sport: 'Tennis' },
        schedule: '0 7 * * *',
        destination: { type: 'webhook', url, secret: ADMIN_HOOK_SECRET },
      });
      expect(hook.status).toBe(201);
      const id = hook.json.id as string;
      // The URL's path and query are the admin's: the editor sees the origin only.
      expect((await admin('GET', `/api/deliveries/${id}`)).json.destination.url).toBe(url);
      expect((await editor('GET', `/api/deliveries/${id}`)).json.destination.url).toBe(`http://127.0.0.1:${original.port}/…`);

      const moved = await editor('PATCH', `/api/deliveries/${id}`, {
        destination: { type: 'webhook', url: `http://127.0.0.1:${editors.port}/steal` },
      });
      expect(moved.status).toBe(400);
      expect(moved.json.error.details['destination.secret']).toMatch(/must be entered again: the saved one belongs to the webhook URL/);
      const started = await editor('POST', `/api/deliveries/${id}/run`);
      const run = await runOf(editor, id, started.json.run.id);
      expect(run).toMatchObject({ outcome: 'complete' });
      expect(String(run.file)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${original.port}/… \\(`));
      expect(JSON.stringify(run)).not.toContain('tok_8c1f0a7d');
      expect(original.got).toHaveLength(1);
      expect(original.got[0]!.url).toBe(`${secretPath}?sig=abc`);
      expect(receiverAccepts(ADMIN_HOOK_SECRET, original.got[0]!.headers, original.got[0]!.body)).toBe(true);
      expect(editors.got).toEqual([]);
      // With a secret of the editor's own, the move is fine: the new target gets the editor's signature, not the admin's.
      const own = 'whsec-editors-own-0123456789';
      const withOwn = await editor('PATCH', `/api/deliveries/${id}`, {
        destination: { type: 'webhook', url: `http://127.0.0.1:${editors.port}/mine`, secret: own },
      });
      expect(withOwn.status).toBe(200);
      await runOf(editor, id, (await editor('POST', `/api/deliveries/${id}/run`)).json.run.id);
      expect(editors.got).toHaveLength(1);
      expect(receiverAccepts(own, editors.got[0]!.headers, editors.got[0]!.body)).toBe(true);
      expect(receiverAccepts(ADMIN_HOOK_SECRET, editors.got[0]!.headers, editors.got[0]!.body)).toBe(false);

      sshd = await startSshd();
      if (!sshd) return void test.info().annotations.push({ type: 'skipped', description: sshdMissing('the SFTP secret binding') });
      const destination = { type: 'sftp', host: '127.0.0.1', port: sshd.port, username: sshd.username, path: 'drop' };
      const sftp = await admin('POST', '/api/deliveries', {
        name: 'Admin SFTP',
        kind: 'results',
        format: 'csv',
        filters: { sport: 'Tennis' },
        schedule: '0 8 * * *',
        destination: { ...destination, privateKey: sshd.privateKey },
      });
      expect(sftp.status).toBe(201);
      const sftpId = sftp.json.id as string;
      for (const change of [{ port: trapPort }, { username: 'editor-account' }, { host: 'localhost' }]) {
        const refused = await editor('PATCH', `/api/deliveries/${sftpId}`, { destination: { ...destination, ...change } });
        expect(refused.status, JSON.stringify(change)).toBe(400);
        expect(refused.json.error.details['destination.password']).toMatch(/must be entered again: the saved one belongs to sftp:\/\//);
      }
      const sftpRun = await runOf(editor, sftpId, (await editor('POST', `/api/deliveries/${sftpId}/run`)).json.run.id);
      expect(sftpRun).toMatchObject({ outcome: 'complete' });
      expect(await readdir(path.join(sshd.home, 'drop'))).toHaveLength(3); // the file, its manifest and the manifest’s JWS
      expect(trapped).toBe(0);
    } finally {
      original.close();
      editors.close();
      trap.close();
      sshd?.stop();
    }
  });

  test('run limits: one run in flight per delivery, walk slots, deliveries per person, a minimum interval', async () => {
    test.setTimeout(120_000);
    const tooOften = await editor('POST', '/api/deliveries', {
      name: 'Too often',
      kind: 'picks',
      format: 'csv',
      filters: {},
      schedule: '*/5 * * * *',
      destination: { type: 'directory', folder: 'often' },
    });
    expect(tooOften.status).toBe(400);
    expect(tooOften.json.error.details).toEqual({
      schedule: 'runs every 5 minutes at its most frequent; deliveries may run at most every 15 minutes (DELIVERY_MIN_INTERVAL_MINUTES)',
    });
    const created = await editor('POST', '/api/deliveries', {
      name: 'Quarter hourly',
      kind: 'picks',
      format: 'csv',
      filters: { sport: 'Tennis' },
      schedule: '*/15 * * * *',
      destination: { type: 'directory', folder: 'quarter' },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;

    // 25 at once, while the upstream is slow: one runs, every other answer names it.
    await fetch(`${proxyUrl}/__faults`, { method: 'POST', body: JSON.stringify([{ path: '/api/v1/picks', delayMs: 3_000 }]) });
    const answers = await Promise.all(Array.from({ length: 25 }, () => editor('POST', `/api/deliveries/${id}/run`)));
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted).toHaveLength(1);
    const runId = accepted[0]!.json.run.id as string;
    const busy = answers.filter((a) => a.status === 409);
    expect(busy).toHaveLength(24);
    for (const answer of busy)
      expect(answer.json.error).toMatchObject({ code: 'DELIVERY_BUSY', message: expect.stringContaining(`already running: run ${runId}`) });
    await fetch(`${proxyUrl}/__faults`, { method: 'DELETE' });
    expect(await runOf(editor, id, runId)).toMatchObject({ outcome: 'complete' });
    expect(((await editor('GET', `/api/deliveries/${id}/runs`)).json.data as unknown[]).length).toBe(1);

    // The owner's one walk slot (MAX_EXPORTS_PER_USER=1) is taken by an export: the run waits its turn.
    await fetch(`${proxyUrl}/__faults`, { method: 'POST', body: JSON.stringify([{ path: '/api/v1/picks', kind: 'hang' }]) });
    const leave = new AbortController();
    const cookie = await sessionCookie(portal.origin, 'editor');
    const exporting = fetch(`${portal.origin}/api/export/picks?format=csv`, { headers: { cookie }, signal: leave.signal }).then(
      async (res) => res.body && (await res.arrayBuffer().catch(() => null)),
      () => null,
    );
    await waitUntil(
      async () => (await (await fetch(`${proxyUrl}/__requests`)).json()).length > 0,
      'the export to reach the upstream',
      20_000,
    );
    const slotless = await editor('POST', `/api/deliveries/${id}/run`);
    expect(slotless.status).toBe(429);
    expect(slotless.json.error).toMatchObject({ code: 'TOO_MANY_WALKS', message: expect.stringContaining('You already have 1') });
    leave.abort();
    await exporting;
    await fetch(`${proxyUrl}/__faults`, { method: 'DELETE' });
    await waitUntil(async () => (await editor('POST', `/api/deliveries/${id}/run`)).status === 202, 'the slot to come back', 20_000);

    // Three deliveries per person (DELIVERY_MAX_PER_USER=3): the fourth is refused, whoever else has many.
    for (const name of ['Second', 'Third'])
      expect((await editor('POST', '/api/deliveries', { name, ...base(name) })).status, name).toBe(201);
    const fourth = await editor('POST', '/api/deliveries', { name: 'Fourth', ...base('fourth') });
    expect(fourth.status).toBe(400);
    expect(fourth.json.error.details.delivery).toMatch(/already own 3 deliveries.*DELIVERY_MAX_PER_USER is 3/);
    expect((await admin('POST', '/api/deliveries', { name: 'Admins own', ...base('admins') })).status).toBe(201);
  });

  test('the origin rule: a state-changing request from a sibling site or without the portal as Origin starts nothing', async () => {
    const list = (await editor('GET', '/api/deliveries')).json.data as { id: string; name: string }[];
    const id = list.find((d) => d.name === 'Second')!.id;
    const cookie = await sessionCookie(portal.origin, 'editor');
    const attempts: Record<string, string>[] = [
      { origin: 'https://reports.partner.example', 'sec-fetch-site': 'same-site' },
      { origin: `http://localhost:${PORT}`, 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      {},
    ];
    for (const headers of attempts) {
      const res = await fetch(`${portal.origin}/api/deliveries/${id}/run`, { method: 'POST', headers: { cookie, ...headers } });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    }
    for (const path of ['/api/changes/poll', '/api/auth/signout'])
      expect((await fetch(`${portal.origin}${path}`, { method: 'POST', headers: { cookie } })).status, path).toBe(403);
    expect((await editor('GET', `/api/deliveries/${id}/runs`)).json.data).toEqual([]);
  });

  test('request bodies over the limit are refused with 413 before they are read, signed in or not', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const origin = portal.origin;
    const signIn = await fetch(`${origin}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { origin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `email=a&password=${big}`,
    }).catch((error: Error) => error);
    if (signIn instanceof Response) {
      expect(signIn.status).toBe(413);
      expect(((await signIn.json()) as { error: { message: string } }).error.message).toBe(
        'The request body is larger than the portal accepts (1024 KB).',
      );
    } else expect(signIn.message).toMatch(/fetch failed|closed/); // refused while still sending
    const cookie = await sessionCookie(origin, 'editor');
    const chunked = await fetch(`${origin}/api/deliveries`, {
      method: 'POST',
      headers: { origin, cookie, 'Content-Type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit).catch((error: Error) => error);
    if (chunked instanceof Response) expect(chunked.status).toBe(413);
    else expect(chunked.message).toMatch(/fetch failed|closed/);
    // Still serving, and the body that fits goes through to the handler's own check.
    const fits = await editor('POST', '/api/deliveries', { name: 'x'.repeat(100) });
    expect(fits.status).toBe(400);
  });

  test('a password reset, disable and enable, and sign-out end sessions for good; /api/auth/session then says {}', async ({ page }) => {
    test.setTimeout(90_000);
    const origin = portal.origin;
    const session = async (cookie: string) => (await fetch(`${origin}/api/auth/session`, { headers: { cookie } })).json();
    const first = await jsonSignIn(origin, RESET_ME.email, RESET_ME.password);
    expect(first.signedIn).toBe(true);
    expect(await session(first.cookie)).toMatchObject({ user: { email: RESET_ME.email, role: 'editor' } });

    await new LoginPage(page, origin).visit('callbackUrl=/admin/users');
    await page.getByLabel('Email').fill(STAFF.admin.email);
    await page.getByLabel('Password').fill(STAFF.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/admin/users');
    const form = page.getByRole('form', { name: `Change ${RESET_ME.email}` });
    await form.getByRole('button', { name: 'Reset password' }).click();
    const second = (await form.getByTestId('one-time-password-value').textContent())!;
    await waitUntil(async () => !(await hasSession(origin, first.cookie)), 'the reset to end the old session', 15_000);
    expect(await session(first.cookie)).toEqual({});
    expect((await fetch(`${origin}/api/deliveries`, { headers: { cookie: first.cookie } })).status).toBe(401);

    const fresh = await jsonSignIn(origin, RESET_ME.email, second);
    expect(fresh.signedIn).toBe(true);
    await form.getByRole('button', { name: 'Disable' }).click();
    await waitUntil(async () => !(await hasSession(origin, fresh.cookie)), 'disabling to end the session', 15_000);
    await form.getByRole('button', { name: 'Enable' }).click();
    await expect(page.locator(`tr[data-user="${RESET_ME.email}"] [data-cell="status"]`)).toHaveText('enabled');
    // Enabled again: the cookies from before stay dead (a new session epoch), on every read, well past the account cache.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    for (const cookie of [first.cookie, fresh.cookie]) {
      expect(await session(cookie)).toEqual({});
      expect((await fetch(`${origin}/api/deliveries`, { headers: { cookie } })).status).toBe(401);
    }
    const third = await jsonSignIn(origin, RESET_ME.email, second);
    expect(third.signedIn).toBe(true);
    expect((await signOut(origin, third.cookie)).status).toBeLessThan(400);
    expect(await session(third.cookie)).toEqual({});
  });

  test('a run does not start without the spool space it needs: 507, saying how much is free and needed', async () => {
    test.setTimeout(120_000);
    const tight = await startPortal(SPOOL_PORT, proxyUrl, { DELIVERY_SPOOL_MIN_FREE_MB: '900000000' });
    const call = api(tight.origin, await sessionCookie(tight.origin, 'editor'));
    const created = await call('POST', '/api/deliveries', { name: 'Spooled', ...base('spooled') });
    const res = await call('POST', `/api/deliveries/${created.json.id}/run`);
    expect(res.status).toBe(507);
    expect(res.json.error).toMatchObject({
      code: 'DELIVERY_NO_SPACE',
      message: expect.stringMatching(/has \d+ MB free and a run needs at least 900000000 MB \(DELIVERY_SPOOL_MIN_FREE_MB\)/),
    });
    expect((await call('GET', `/api/deliveries/${created.json.id}/runs`)).json.data).toEqual([]);
  });
});

function base(folder: string) {
  return {
    kind: 'results',
    format: 'json',
    filters: { sport: 'Tennis' },
    schedule: '0 5 * * *',
    destination: { type: 'directory', folder },
  };
}
