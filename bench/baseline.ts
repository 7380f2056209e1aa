import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hashPassword } from '../lib/auth/passwords';
import { assertPortFree, BENCH_USER, spawnPortalServer, waitFor, type Running } from './support';

/**
 * An earlier commit of the portal, built and started beside today's, so that a benchmark can measure both
 * in one run on the same machine with the same shape (issue 13: "report both figures side by side").
 * The commit is unpacked (git archive) into <tmp>/picks-portal-baseline-<rev> (outside the repository, so
 * no lint, test or build of ours sees it), installed with its own lockfile and built with its own Next.js,
 * once; later runs reuse it. It is started with its own
 * scripts/portal-server.mjs and Node arguments, in front of today's sandbox (the API is the same spec), with
 * the bench's account in the users file those commits read (PORTAL_USERS_FILE; same scrypt format).
 */

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}`);
}

/** The baseline's directory, unpacked, installed and built (about 4 minutes the first time). */
export function prepareBaseline(rev: string): string {
  const commit = spawnSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { encoding: 'utf8' }).stdout.trim();
  if (!commit) throw new Error(`--baseline ${rev}: no such commit in this repository`);
  const dir = path.join(tmpdir(), `picks-portal-baseline-${commit}`);
  if (existsSync(path.join(dir, '.next', 'BUILD_ID'))) return dir;
  console.log(`[bench] preparing the baseline ${commit} in ${dir}: npm ci and next build (once)`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  run('sh', ['-c', `git archive ${commit} | tar -x -C '${dir}'`], process.cwd());
  run('npm', ['ci', '--no-audit', '--no-fund'], dir);
  run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], dir);
  return dir;
}

/** The baseline portal in front of a running stack's sandbox, on its own port; stop() stops it alone. */
export async function startBaselinePortal(dir: string, stack: Running, port: number, nodeArgs: string[]) {
  await assertPortFree(port);
  // A store of its own: an older portal must not meet a database a newer one has migrated.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-baseline-'));
  const usersFile = path.join(dataDir, 'users.json');
  const user = {
    email: BENCH_USER.email,
    role: 'admin',
    passwordHash: await hashPassword(BENCH_USER.password),
    createdAt: new Date().toISOString(),
  };
  writeFileSync(usersFile, `${JSON.stringify({ users: [user] })}\n`, { mode: 0o600 });
  const portalUrl = `http://127.0.0.1:${port}`;
  const portal = spawnPortalServer({
    port,
    upstreamUrl: stack.upstreamUrl,
    key: stack.key,
    nodeArgs,
    // Set as today's portal is (its logos' origin behind the replay): else it draws other pages, and is timed on less work.
    env: { ...stack.portalEnv, PORTAL_USERS_FILE: usersFile, PORTAL_DATA_DIR: dataDir, DATABASE_URL: '' },
    cwd: dir,
  });
  const stop = () => portal.kill('SIGTERM');
  try {
    await waitFor(`${portalUrl}/login`);
  } catch (error) {
    stop();
    throw error;
  }
  return { portal, portalUrl, stop };
}
