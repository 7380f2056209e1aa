import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { createFaultProxy } from '../support/fault-proxy';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { writeUsersFile } from '../support/users-file';
import { E2E, upstreamEnv } from '../support/ports';
import { startInstance, usersCommand, waitUntil, type Instance } from '../support/instances';
import { hasSession, jsonSignIn, signOut } from '../support/session';

/**
 * Two portal processes on one PostgreSQL, as on two machines: each with its own data dir and users file,
 * the same session secret, and the same upstream (the sandbox behind a fault proxy of this spec's own).
 * Everything two instances must agree on is checked from the other instance.
 */

const PORTS = [3210, 3211] as const;
const origin = (port: number) => `http://127.0.0.1:${port}`;
const [A, B] = PORTS.map(origin) as [string, string];
const FIRST = { email: 'first@one.example', password: 'first-admin-pass', role: 'admin' };
const SECOND = { email: 'second@two.example', password: 'second-editor-pass', role: 'editor' };

let pg: TestPostgres | null = null;
let databaseUrl = '';
const proxy = createFaultProxy(`http://127.0.0.1:${E2E.sandboxPort}`);
let proxyUrl = '';
const portals: Instance[] = [];

const health = async (base: string) => {
  const res = await fetch(`${base}/api/health`);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

async function startPortal(port: number, user: typeof FIRST): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `instance-${port}-`));
  const usersFile = path.join(dataDir, 'users.json');
  await writeUsersFile(usersFile, [user]);
  portals.push(
    await startInstance(port, {
      ...upstreamEnv(proxyUrl, E2E.sandboxKey),
      DATABASE_URL: databaseUrl,
      PORTAL_DATA_DIR: dataDir,
      PORTAL_USERS_FILE: usersFile,
      AUTH_SECRET: 'many-instances-secret-0123456789-abcdef',
      PICKS_ME_CACHE_SECONDS: '0',
      PICKS_API_MAX_RETRIES: '0',
      CHANGES_POLL_SECONDS: '0', // this spec counts upstream requests; the change feed's own spec polls

      PORTAL_IMAGE_ORIGINS: `http://127.0.0.1:${E2E.sandboxPort}`,
    }),
  );
}

test.describe.serial('two portal instances on one PostgreSQL', () => {
  test.beforeAll(async () => {
    test.setTimeout(240_000);
    pg = await startPostgres();
    if (!pg) {
      test.skip(true, postgresMissing('the two-instance tests'));
      return;
    }
    databaseUrl = await pg.createDatabase('many_instances');
    proxyUrl = await proxy.listen(0);
    // One after the other: the first migrates; the second finds the schema up to date.
    await startPortal(PORTS[0], FIRST);
    await startPortal(PORTS[1], SECOND);
  });

  test.afterAll(async () => {
    await Promise.all(portals.map((portal) => portal.stop()));
    await proxy.close();
    pg?.destroy();
  });

  test("each instance's users file is imported, and every account signs in on both", async () => {
    for (const base of [A, B]) {
      expect((await jsonSignIn(base, FIRST.email, FIRST.password)).signedIn).toBe(true);
      expect((await jsonSignIn(base, SECOND.email, SECOND.password)).signedIn).toBe(true);
    }
  });

  test('a user added by the command line after both started signs in on both at once', async () => {
    expect(await usersCommand(['add', 'late@cli.example', '--role', 'viewer'], { DATABASE_URL: databaseUrl }, 'late-viewer-pass\n')).toBe(
      0,
    );
    expect((await jsonSignIn(A, 'late@cli.example', 'late-viewer-pass')).signedIn).toBe(true);
    expect((await jsonSignIn(B, 'late@cli.example', 'late-viewer-pass')).signedIn).toBe(true);
  });

  test('signing out on one instance refuses the same cookie on the other', async () => {
    const { cookie } = await jsonSignIn(A, SECOND.email, SECOND.password);
    expect(await hasSession(B, cookie)).toBe(true);
    expect((await fetch(`${B}/licence`, { headers: { cookie }, redirect: 'manual' })).status).toBe(200);
    expect((await signOut(A, cookie)).status).toBeLessThan(400);
    expect(await hasSession(B, cookie)).toBe(false);
    const page = await fetch(`${B}/licence`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(307);
    expect(page.headers.get('location')).toContain('/login');
  });

  test('failed sign-ins spread over both instances throttle the account on both', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await jsonSignIn(A, 'late@cli.example', 'wrong password')).signedIn).toBe(false);
      expect((await jsonSignIn(B, 'late@cli.example', 'wrong password')).signedIn).toBe(false);
    }
    for (const base of [A, B]) {
      const attempt = await jsonSignIn(base, 'late@cli.example', 'late-viewer-pass');
      expect(attempt.signedIn).toBe(false);
      expect(attempt.error).toMatch(/^Too many failed sign-ins for this account/);
    }
  });

  test('a user demoted, then disabled, by the command line loses their sessions on both instances within seconds', async () => {
    test.setTimeout(60_000);
    const env = { DATABASE_URL: databaseUrl };
    expect(await usersCommand(['add', 'moved@cli.example', '--role', 'admin'], env, 'moved-admin-pass\n')).toBe(0);
    const cookies = await Promise.all([A, B].map(async (base) => (await jsonSignIn(base, 'moved@cli.example', 'moved-admin-pass')).cookie));
    const role = async (base: string, cookie: string) =>
      ((await (await fetch(`${base}/api/auth/session`, { headers: { cookie } })).json()) as { user?: { role?: string } } | null)?.user
        ?.role;
    expect(await role(A, cookies[0]!)).toBe('admin');
    expect(await usersCommand(['role', 'moved@cli.example', '--role', 'viewer'], env)).toBe(0);
    // A role change ends open sessions (a new session epoch): /api/auth/session says nothing of them.
    for (const [i, base] of [A, B].entries())
      await waitUntil(async () => (await role(base, cookies[i]!)) === undefined, `demotion on ${base}`, 20_000);
    const again = (await jsonSignIn(B, 'moved@cli.example', 'moved-admin-pass')).cookie;
    expect(await role(B, again)).toBe('viewer');
    expect((await fetch(`${B}/coverage`, { headers: { cookie: again }, redirect: 'manual' })).status).toBe(403);
    expect(await usersCommand(['disable', 'moved@cli.example'], env)).toBe(0);
    for (const base of [A, B]) await waitUntil(async () => !(await hasSession(base, again)), `disabling on ${base}`, 20_000);
  });

  test('a 429 with Retry-After: 20 seen by one instance keeps the other from asking the upstream for those 20 s', async () => {
    test.setTimeout(90_000);
    const a = (await jsonSignIn(A, FIRST.email, FIRST.password)).cookie;
    const b = (await jsonSignIn(B, FIRST.email, FIRST.password)).cookie;
    const rule = { path: '^/api/v1/picks', status: 429, times: 1, headers: { 'Retry-After': '20' } };
    await fetch(`${proxyUrl}/__faults`, { method: 'POST', body: JSON.stringify([{ ...rule, body: '{"error":{"code":"RATE_LIMITED"}}' }]) });
    await fetch(`${proxyUrl}/__requests`, { method: 'DELETE' });
    type Seen = { path: string; at: number };
    const seen = async () => (await (await fetch(`${proxyUrl}/__requests`)).json()) as Seen[];
    // A is answered 429 (and, with no retries, shows it); B asks for another page 2 s later.
    const onA = fetch(`${A}/picks`, { headers: { cookie: a } }).then((res) => res.text());
    const picks = async () => (await seen()).filter((request) => request.path.startsWith('/api/v1/picks'));
    await waitUntil(async () => (await picks()).length === 1, 'the 429', 10_000);
    const throttledAt = (await picks())[0]!.at;
    const after = async () => (await seen()).filter((request) => request.at > throttledAt);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // B reads the shared pause once a second
    expect((await health(B)).body.upstream).toBe('throttled'); // at once: a health probe does not wait
    const onB = fetch(`${B}/picks?sport=Football`, { headers: { cookie: b } }).then((res) => res.text());
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await after()).toEqual([]); // nobody asked again, B included
    // Neither page waits out a pause longer than a person waits (PAGE_UPSTREAM_WAIT_MS): both say "throttled".
    const [pageA, pageB] = await Promise.all([onA, onB]);
    expect(pageA).toContain('data-error-code="THROTTLED"');
    expect(pageB).toContain('data-error-code="THROTTLED"');
    // Once the pause is over, B asks again and shows the records.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, throttledAt + 20_500 - Date.now())));
    expect(await fetch(`${B}/picks?sport=Football`, { headers: { cookie: b } }).then((res) => res.text())).toContain('data-pick-id=');
    expect((await after()).filter((request) => request.path.includes('sport=Football')).length).toBeGreaterThan(0);
    for (const request of await after()) expect(request.at - throttledAt).toBeGreaterThanOrEqual(19_500);
  });

  test('health is 503 on both while PostgreSQL is stopped, sign-in is refused clearly, and both recover by themselves', async () => {
    test.setTimeout(120_000);
    const cookie = (await jsonSignIn(B, SECOND.email, SECOND.password)).cookie;
    // Used once while the store answers: B may honour this session for SESSION_STORE_GRACE_SECONDS without it.
    expect(await hasSession(B, cookie)).toBe(true);
    expect((await health(A)).status).toBe(200);
    pg!.stop();
    for (const base of [A, B]) {
      await waitUntil(async () => (await health(base)).status === 503, `503 from ${base}`, 30_000);
      expect((await health(base)).body).toMatchObject({ status: 'unavailable', store: 'unreachable' });
      const refused = await jsonSignIn(base, FIRST.email, FIRST.password);
      expect(refused.signedIn).toBe(false);
      expect(refused.error).toBe("Sign-in is unavailable: the portal's database cannot be reached. Try again in a minute.");
    }
    // An export would go unrecorded in the audit trail: refused before its first byte.
    const refusedExport = await fetch(`${B}/api/export/picks?format=csv`, { headers: { cookie } });
    expect(refusedExport.status).toBe(503);
    expect(((await refusedExport.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
    // What does not need the store is still served to a signed-in person.
    const page = await fetch(`${B}/licence`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Licence');
    pg!.start();
    for (const base of [A, B]) await waitUntil(async () => (await health(base)).status === 200, `recovery of ${base}`, 60_000);
    expect((await jsonSignIn(A, FIRST.email, FIRST.password)).signedIn).toBe(true);
    expect((await jsonSignIn(B, SECOND.email, SECOND.password)).signedIn).toBe(true);
  });
});
