import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E, upstreamEnv } from './ports';
import { startInstance, usersCommand, type Instance } from './support/instances';
import { hasSession, jsonSignIn, signOut } from './support/session';

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
    PORTAL_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sandbox-mode-')),
  };
  let sandboxPortal: Instance | undefined;
  test.afterAll(async () => sandboxPortal?.stop());

  test('a restart keeps people signed in and records no settings change: the generated session secret is kept', async () => {
    test.setTimeout(240_000);
    sandboxPortal = await startInstance(SANDBOX_PORTAL, sandboxEnv);
    const viewer = (await jsonSignIn(sandboxPortal.origin, 'viewer@demo.picks.test', 'demo-viewer-pass')).cookie;
    const admin = (await jsonSignIn(sandboxPortal.origin, 'admin@demo.picks.test', 'demo-admin-pass')).cookie;
    expect(await hasSession(sandboxPortal.origin, viewer)).toBe(true);
    await sandboxPortal.stop();
    sandboxPortal = await startInstance(SANDBOX_PORTAL, sandboxEnv);
    expect(await hasSession(sandboxPortal.origin, viewer)).toBe(true);
    const trail = await fetch(`${sandboxPortal.origin}/api/audit?format=json&action=settings.change`, { headers: { cookie: admin } });
    expect(trail.status).toBe(200);
    const { entries } = (await trail.json()) as { entries: { filters: Record<string, string> | null }[] };
    // The first start records the settings; the restart, with the same secret, records none.
    expect(entries.filter((entry) => JSON.stringify(entry.filters ?? {}).includes('AUTH_SECRET'))).toHaveLength(1);
  });
});
