import { mkdtempSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sshdMissing, startSshd, type TestSshd } from '../support/sshd';
import { receiverAccepts } from '../support/webhook-signature';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E, upstreamEnv } from '../support/ports';
import { startInstance, usersCommand, waitUntil, type Instance } from '../support/instances';
import { hasSession, jsonSignIn, signOut } from '../support/session';

/** The embedded default: state in a file database that outlives the process and is shared with `npm run users`. */

const PORT = 3212;
const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-'));
const env = {
  ...upstreamEnv(`http://127.0.0.1:${E2E.sandboxPort}`, E2E.sandboxKey),
  DATABASE_URL: '',
  PORTAL_DATA_DIR: dataDir,
  PORTAL_USERS_FILE: path.join(dataDir, 'users.json'),
  AUTH_SECRET: 'embedded-store-secret-0123456789-abcdef',
};
let portal: Instance | undefined;

test.describe.serial('the embedded store', () => {
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    expect(await usersCommand(['add', 'owner@embedded.example', '--role', 'admin'], env, 'owner-admin-pass\n')).toBe(0);
    portal = await startInstance(PORT, env);
  });
  test.afterAll(async () => portal?.stop());

  test('a user added while the portal runs can sign in at once', async () => {
    const before = await jsonSignIn(portal!.origin, 'new@embedded.example', 'new-viewer-pass');
    expect(before.signedIn).toBe(false);
    expect(await usersCommand(['add', 'new@embedded.example', '--role', 'viewer'], env, 'new-viewer-pass\n')).toBe(0);
    const after = await jsonSignIn(portal!.origin, 'new@embedded.example', 'new-viewer-pass');
    expect(after.signedIn).toBe(true);
    expect(await hasSession(portal!.origin, after.cookie)).toBe(true);
  });

  test('a signed-out cookie is still refused after a restart; one still signed in is not', async () => {
    test.setTimeout(180_000);
    const out = (await jsonSignIn(portal!.origin, 'owner@embedded.example', 'owner-admin-pass')).cookie;
    const kept = (await jsonSignIn(portal!.origin, 'owner@embedded.example', 'owner-admin-pass')).cookie;
    expect((await signOut(portal!.origin, out)).status).toBeLessThan(400);
    expect(await hasSession(portal!.origin, out)).toBe(false);
    await portal!.stop();
    portal = await startInstance(PORT, env);
    expect(await hasSession(portal.origin, out)).toBe(false);
    expect(await hasSession(portal.origin, kept)).toBe(true);
    const page = await fetch(`${portal.origin}/licence`, { headers: { cookie: out }, redirect: 'manual' });
    expect(page.status).toBe(307);
  });
});

test.describe.serial('sandbox mode (npm start with no upstream)', () => {
  const SANDBOX_PORTAL = 3228;
  const sandboxEnv = {
    PICKS_API_BASE_URL: '',
    PICKS_API_KEY: '',
    AUTH_SECRET: '',
    SANDBOX_PORT: '4228',
    DATABASE_URL: '',
    // Nothing set but what the README says: the portal makes its own keys, and allows loopback receivers.
    DELIVERY_SECRET_KEY: '',
    DELIVERY_ALLOW_PRIVATE_TARGETS: '',
    LOG_REQUESTS: '',
    LOG_FORMAT: '',
    PORTAL_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sandbox-mode-')),
  };
  let sandboxPortal: Instance | undefined;
  const receiver = webhookReceiver();
  let sshd: TestSshd | null = null;
  const made: { hook: string; sftp: string | null; token: string; endpoint: string; endpointSecret: string } = {
    hook: '',
    sftp: null,
    token: '',
    endpoint: '',
    endpointSecret: '',
  };
  test.afterAll(async () => {
    await sandboxPortal?.stop();
    sshd?.stop();
    await receiver.close();
  });

  test('npm start: a first screen of at most 25 lines with the URL and the sign-ins, and no request lines', async () => {
    test.setTimeout(240_000);
    const output: string[] = [];
    sandboxPortal = await startInstance(SANDBOX_PORTAL, sandboxEnv, output);
    const viewer = (await jsonSignIn(sandboxPortal.origin, 'viewer@demo.picks.test', 'demo-viewer-pass')).cookie;
    expect((await fetch(`${sandboxPortal.origin}/licence`, { headers: { cookie: viewer } })).status).toBe(200);
    const lines = output.join('').split('\n');
    const ready = lines.findIndex((line) => line.includes('Ready: http://localhost:3228'));
    expect(ready, lines.join('\n')).toBeGreaterThan(0);
    expect(ready + 1).toBeLessThanOrEqual(25);
    const first = lines.slice(0, ready + 1).join('\n');
    expect(first).toContain('Sign in at http://localhost:3228');
    for (const role of ['viewer', 'editor', 'manager', 'admin'])
      expect(first).toMatch(new RegExp(`${role} +${role}@demo\\.picks\\.test +password: demo-${role}-pass`));
    // Beside the sandbox the pages people open print nothing (LOG_REQUESTS=1 would); nothing at error level.
    expect(lines.filter((line) => line.includes('"component":"http"'))).toEqual([]);
    expect(lines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });

  test('with no secret key set: an SFTP delivery with a password, a webhook delivery with a secret and a consumer webhook', async () => {
    const editor = (await jsonSignIn(sandboxPortal!.origin, 'editor@demo.picks.test', 'demo-editor-pass')).cookie;
    const call = caller(sandboxPortal!.origin, editor);
    const base = { kind: 'picks', format: 'csv', filters: { sport: 'Tennis' }, schedule: '0 6 * * *' };
    const hook = await call('POST', '/api/deliveries', {
      ...base,
      name: 'Hook',
      destination: { type: 'webhook', url: await receiver.url('/delivery'), secret: DELIVERY_HOOK_SECRET },
    });
    expect(hook.status, JSON.stringify(hook.json)).toBe(201);
    made.hook = hook.json.id;
    sshd = await startSshd({ password: SFTP_PASSWORD });
    if (!sshd) test.info().annotations.push({ type: 'skipped', description: sshdMissing('SFTP with a password (as root)') });
    else {
      const sftp = await call('POST', '/api/deliveries', {
        ...base,
        name: 'Drop',
        destination: { type: 'sftp', host: '127.0.0.1', port: sshd.port, username: sshd.username, password: SFTP_PASSWORD, path: '.' },
      });
      expect(sftp.status, JSON.stringify(sftp.json)).toBe(201);
      made.sftp = sftp.json.id;
    }
    const token = await call('POST', '/api/tokens', {
      name: 'Partner systems',
      scope: { content: ['picks', 'results', 'changes'], sports: [], leagues: [] },
      expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      ratePerMinute: 60,
      dailyRecords: 1000,
    });
    expect(token.status, JSON.stringify(token.json)).toBe(201);
    made.token = token.json.id;
    const endpoint = await call('POST', `/api/tokens/${made.token}/webhooks`, { url: await receiver.url('/events') });
    expect(endpoint.status, JSON.stringify(endpoint.json)).toBe(201);
    made.endpoint = endpoint.json.id;
    made.endpointSecret = endpoint.json.secret;
  });

  test('a restart keeps people signed in and records no settings change: the generated session secret is kept', async () => {
    test.setTimeout(240_000);
    const viewer = (await jsonSignIn(sandboxPortal!.origin, 'viewer@demo.picks.test', 'demo-viewer-pass')).cookie;
    const admin = (await jsonSignIn(sandboxPortal!.origin, 'admin@demo.picks.test', 'demo-admin-pass')).cookie;
    expect(await hasSession(sandboxPortal!.origin, viewer)).toBe(true);
    await sandboxPortal!.stop();
    sandboxPortal = await startInstance(SANDBOX_PORTAL, sandboxEnv);
    expect(await hasSession(sandboxPortal.origin, viewer)).toBe(true);
    const trail = await fetch(`${sandboxPortal.origin}/api/audit?format=json&action=settings.change`, { headers: { cookie: admin } });
    expect(trail.status).toBe(200);
    const { entries } = (await trail.json()) as { entries: { filters: Record<string, string> | null }[] };
    // The first start records the settings; the restart, with the same secret, records none.
    expect(entries.filter((entry) => JSON.stringify(entry.filters ?? {}).includes('AUTH_SECRET'))).toHaveLength(1);
  });

  test('after the restart each sends with the secret it was saved with: the key made at first start was kept', async () => {
    test.setTimeout(120_000);
    const editor = (await jsonSignIn(sandboxPortal!.origin, 'editor@demo.picks.test', 'demo-editor-pass')).cookie;
    const call = caller(sandboxPortal!.origin, editor);
    for (const id of [made.hook, made.sftp].filter((x): x is string => x !== null)) {
      const started = await call('POST', `/api/deliveries/${id}/run`);
      expect(started.status, JSON.stringify(started.json)).toBe(202);
      let run: Record<string, unknown> | undefined;
      await waitUntil(async () => {
        run = ((await call('GET', `/api/deliveries/${id}/runs`)).json.data as Record<string, unknown>[])[0];
        return run !== undefined && run.outcome !== 'running';
      }, `the run of ${id}`);
      expect(run!.outcome, JSON.stringify(run)).toMatch(/^complete/);
    }
    const got = receiver.received.find((r) => r.path === '/delivery')!;
    expect(receiverAccepts(DELIVERY_HOOK_SECRET, got.headers, got.body)).toBe(true);
    if (sshd) expect((await readdir(sshd.home)).filter((name) => name.endsWith('.csv'))).toHaveLength(1);
    // Test connection, as the button beside each asks: every step of the SFTP server and the receiver said, none failing.
    const hookTest = await call('POST', `/api/deliveries/${made.hook}/test`);
    expect(hookTest.json, JSON.stringify(hookTest.json)).toMatchObject({
      ok: true,
      steps: [
        { step: 'address', ok: true },
        { step: 'receiver', ok: true, detail: expect.stringContaining('answered') },
      ],
    });
    if (made.sftp) {
      const sftpTest = await call('POST', `/api/deliveries/${made.sftp}/test`);
      expect(sftpTest.json.steps.map((s: { step: string; ok: boolean }) => `${s.step} ${s.ok}`)).toEqual([
        'address true',
        'host key true',
        'sign-in true',
        'folder true',
      ]);
      expect(sftpTest.json.steps[1].detail).toContain('is the pinned one');
    }
    const test_ = await call('POST', `/api/tokens/${made.token}/webhooks/${made.endpoint}/test`);
    expect(test_.json.attempt, JSON.stringify(test_.json)).toMatchObject({ outcome: 'delivered' });
    const event = receiver.received.find((r) => r.path === '/events')!;
    expect(new Webhook(made.endpointSecret).verify(event.body.toString(), event.headers as Record<string, string>)).toBeTruthy();
  });
});

const DELIVERY_HOOK_SECRET = 'first-hour-hook-secret-0123456789';
const SFTP_PASSWORD = 'first-hour-sftp-pass-4f2a';

/** A signed-in person's JSON calls to the portal (with the Origin every changing request must carry). */
function caller(origin: string, cookie: string) {
  return async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${origin}${pathname}`, {
      method,
      headers: { cookie, origin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json().catch(() => null)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
}

/** An HTTP receiver on loopback keeping what each path was sent. */
function webhookReceiver() {
  const received: { path: string; body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ path: req.url ?? '', body: Buffer.concat(chunks), headers: req.headers });
    res.writeHead(204).end();
  });
  const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    async url(pathname: string) {
      await listening;
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}${pathname}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
