import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, STAFF, test } from '../support/fixtures';
import { E2E, upstreamEnv } from '../support/ports';
import { startInstance, waitUntil, type Instance, logFd } from '../support/instances';
import { startSandboxProcess } from '../support/sandbox-process';
import { sessionCookie } from '../support/session';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { writeUsersFile } from '../support/users-file';
import { ownerOnlyTestKey } from '../support/test-key';

/**
 * A rolling upgrade as docs/operations.md#upgrades describes it, side by side on one PostgreSQL: the release
 * before this one's migrations (`PREVIOUS`) serves people; this release starts beside it and migrates the database; the
 * previous one goes on working on the migrated schema — sign-in, pages, an export, a delivery run — and its
 * audit entries and this release's chain into one trail that both releases verify.
 *
 * The previous release is its commit unpacked outside the repository (git archive, kept between runs) with this
 * tree's node_modules linked in (its dependencies are a subset of today's), run with Next's development server: a
 * production build of it would cost this suite minutes on two cores, and the schema is what the test is about.
 */

const PREVIOUS = 'e3d0171'; // the last commit before migration 0015 (move it to the commit before a release's first migration)
const SANDBOX_PORT = 4238;
const OLD_PORT = 3236;
const NEW_PORT = 3237;
const run = promisify(execFile);

let pg: TestPostgres | null = null;
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
let old: { child: ChildProcess; origin: string } | undefined;
let fresh: Instance | undefined;
let env: Record<string, string> = {};
let releaseDir = '';

test.describe.serial('a rolling upgrade on one PostgreSQL', () => {
  test.beforeAll(async () => {
    test.setTimeout(300_000);
    pg = await startPostgres();
    if (!pg) {
      test.skip(true, postgresMissing('the rolling upgrade test'));
      return;
    }
    releaseDir = path.join(tmpdir(), `picks-portal-release-${PREVIOUS}`);
    if (!existsSync(path.join(releaseDir, 'package.json'))) {
      rmSync(releaseDir, { recursive: true, force: true });
      mkdirSync(releaseDir, { recursive: true });
      await run('sh', ['-c', `git archive ${PREVIOUS} | tar -x -C '${releaseDir}'`]);
    }
    // Linked file by file (hard links: instant, no space), not a symlink: Next's compiler refuses a node_modules outside the tree.
    const modules = path.resolve('node_modules');
    if (!existsSync(path.join(releaseDir, 'node_modules')))
      await run('sh', ['-c', `cp -al '${modules}' node_modules || cp -a '${modules}' node_modules`], { cwd: releaseDir });
    sandbox = await startSandboxProcess(SANDBOX_PORT);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'upgrade-'));
    const usersFile = path.join(dataDir, 'users.json');
    await writeUsersFile(
      usersFile,
      (['admin', 'editor'] as const).map((role) => ({ ...STAFF[role], role })),
    );
    env = {
      ...upstreamEnv(sandbox.url, E2E.sandboxKey),
      DATABASE_URL: pg.url,
      PORTAL_USERS_FILE: usersFile,
      AUTH_SECRET: 'upgrade-spec-secret-0123456789-abcdefghij',
      CHANGES_POLL_SECONDS: '0',
      DELIVERY_ROOT: path.join(dataDir, 'deliveries'),
      DELIVERY_SPOOL_MIN_FREE_MB: '1',
      PORTAL_SIGNING_KEY_FILE: ownerOnlyTestKey(),
    };
    // The previous release, in its own tree and data directory.
    const child = spawn('npm', ['run', 'dev'], {
      cwd: releaseDir,
      detached: true,
      stdio: ['ignore', logFd(OLD_PORT), logFd(OLD_PORT)],
      env: {
        ...process.env,
        ...env,
        PORT: String(OLD_PORT),
        NEXTAUTH_URL: `http://localhost:${OLD_PORT}`,
        PORTAL_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'upgrade-old-')),
        NODE_ENV: 'development',
      },
    });
    old = { child, origin: `http://127.0.0.1:${OLD_PORT}` };
    await waitUntil(async () => (await fetch(`${old!.origin}/login`)).ok, 'the previous release', 240_000);
  });

  test.afterAll(async () => {
    await fresh?.stop();
    if (old?.child.pid && old.child.exitCode === null) {
      process.kill(-old.child.pid, 'SIGTERM');
      await once(old.child, 'exit');
    }
    await sandbox?.stop();
    await pg?.stop();
  });

  test('the previous release keeps serving on the schema this release migrated, and both verify one trail', async () => {
    test.setTimeout(300_000);
    const exportCsv = async (origin: string) => {
      const cookie = await sessionCookie(origin, 'editor');
      const res = await fetch(`${origin}/api/export/picks?format=csv&sport=Football`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return (await res.text()).trim().split('\r\n').length - 1;
    };
    const before = await exportCsv(old!.origin);
    expect(before).toBeGreaterThan(10);

    // This release starts beside it and migrates the shared database.
    fresh = await startInstance(NEW_PORT, { ...env, PORTAL_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'upgrade-new-')) });
    const admin = await sessionCookie(fresh.origin, 'admin');
    expect((await fetch(`${fresh.origin}/api/proof/keys`)).status).toBe(200);

    // The previous release, on the migrated schema: a new sign-in, a page, an export, a delivery run.
    const editor = await sessionCookie(old!.origin, 'editor');
    const page = await fetch(`${old!.origin}/picks?sport=Football`, { headers: { cookie: editor } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="records-table"');
    expect(await exportCsv(old!.origin)).toBe(before);
    const created = await fetch(`${old!.origin}/api/deliveries`, {
      method: 'POST',
      headers: { cookie: editor, origin: `http://localhost:${OLD_PORT}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'During the upgrade',
        kind: 'picks',
        format: 'csv',
        schedule: '0 6 * * *',
        filters: { sport: 'Football' },
        destination: { type: 'directory', folder: 'upgrade' },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const started = await fetch(`${old!.origin}/api/deliveries/${id}/run`, {
      method: 'POST',
      headers: { cookie: editor, origin: `http://localhost:${OLD_PORT}` },
    });
    expect(started.status).toBe(202);
    await expect
      .poll(
        async () => {
          const runs = (await (await fetch(`${fresh!.origin}/api/deliveries/${id}/runs`, { headers: { cookie: admin } })).json()) as {
            data: { outcome: string; records: number | null }[];
          };
          return runs.data[0]?.outcome ?? 'none';
        },
        { timeout: 60_000 },
      )
      .toBe('complete');

    // This release exports and signs; one trail holds both releases' entries, and each release verifies it.
    expect(await exportCsv(fresh.origin)).toBe(before);
    // The record history the previous release kept (its exports' records), read by this one at a moment through
    // the heads migration 0015 filled in and the ones the previous release wrote after it.
    await expect
      .poll(
        async () => {
          const asOf = encodeURIComponent(new Date(Date.now() - 1_000).toISOString());
          const res = await fetch(`${fresh!.origin}/api/history?asOf=${asOf}&sport=Football&format=json`, { headers: { cookie: admin } });
          return res.ok ? ((await res.json()) as { count: number }).count : res.status;
        },
        { timeout: 60_000 },
      )
      .toBe(before);
    const dbEnv = { ...process.env, DATABASE_URL: pg!.url, PORTAL_DATA_DIR: tmpdir() };
    const ours = await run('npm', ['run', '-s', 'audit', '--', 'verify'], { env: dbEnv });
    expect(ours.stdout).toMatch(/chain intact/);
    const theirs = await run('npm', ['run', '-s', 'audit', '--', 'verify'], { env: dbEnv, cwd: releaseDir });
    expect(theirs.stdout).toMatch(/chain intact/);
  });
});
