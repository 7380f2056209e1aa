import 'server-only';
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addUser } from '../lib/auth/users';
import { closeStore } from '../lib/store';
import { PORTAL_NODE_ARGS } from '../scripts/portal-node-options';
import { ownerOnlyTestKey } from '../tests/support/test-key';

/** What the benchmarks share: a sandbox and a production portal as child processes, sign-in, process metrics. */

export const median = (xs: number[]) => percentile(xs, 50);

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Two things measured in the same rounds, compared round by round (a[i] / b[i]): the median ratio and its middle
 * half (25th to 75th percentile), "0.97–1.11". A middle half that holds 1 is a difference within the spread of the rounds.
 */
export function pairedRatio(a: number[], b: number[]): { median: number; spread: string } {
  const ratios = a.slice(0, b.length).map((x, i) => x / b[i]!);
  return { median: median(ratios), spread: `${percentile(ratios, 25).toFixed(2)}–${percentile(ratios, 75).toFixed(2)}` };
}

/**
 * For a bench that runs the portal's own code in its process (bench:history): runs this script again with the
 * portal server's V8 arguments (ADR 0007) unless it has them, so what is measured is what ships. Resolves
 * in the process that has them; the other one exits with its child's code.
 */
export async function asThePortalRuns(): Promise<void> {
  if (PORTAL_NODE_ARGS.every((arg) => process.execArgv.includes(arg))) return;
  const child = spawn(process.execPath, [...PORTAL_NODE_ARGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  const code = await new Promise<number>((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
  process.exit(code);
}

export async function waitFor(url: string, init: RequestInit = {}) {
  for (let i = 0; i < 600; i += 1) {
    try {
      if ((await fetch(url, { ...init, redirect: 'manual' })).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

/** Resident memory of a process and its descendants, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const pids = [pid];
  for (let i = 0; i < pids.length; i += 1) {
    for (const task of readdirSync(`/proc/${pids[i]}/task`)) {
      try {
        pids.push(...readFileSync(`/proc/${pids[i]}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
      } catch {
        // gone
      }
    }
  }
  let kb = 0;
  for (const p of pids) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/** CPU time (user + system) a process has used, in ms (Linux /proc, clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Waits until a process is idle (under 10 % of a core over two 200 ms windows in a row, at most 60 s): the
 * background work a request left behind (an export's record history is kept after its file ends) then does not
 * fall on the next measured request. Returns that work's CPU time and how long it took.
 */
export async function settled(pid: number): Promise<{ cpuMs: number; ms: number }> {
  const [start, cpu0] = [performance.now(), cpuMs(pid)];
  let quiet = 0;
  let last = cpu0;
  while (quiet < 2 && performance.now() - start < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuMs(pid);
    quiet = now - last <= 20 ? quiet + 1 : 0;
    last = now;
  }
  return { cpuMs: last - cpu0, ms: Math.max(0, performance.now() - start - 400) };
}

export interface Running {
  sandbox: ChildProcess;
  portal: ChildProcess;
  /** bench/replay.ts between the portal and the sandbox, when asked for. */
  replay: ChildProcess | null;
  /** The first portal and any more on the same store. */
  portals: ChildProcess[];
  sandboxUrl: string;
  /** Where the portal's upstream is: the sandbox, or the replay in front of it. */
  upstreamUrl: string;
  portalUrl: string;
  key: string;
  /** What the stack's portals are set to beyond their store (an earlier commit's portal beside them gets the same). */
  portalEnv: Record<string, string>;
  stop(): void;
}

/** The portal's session secret in every bench (the framed bare page reads the portal's session cookie with it). */
export const BENCH_AUTH_SECRET = 'bench-secret-bench-secret-bench-secret';
export const BENCH_USER = { email: 'bench@example.com', password: 'bench-password' };

/** A sandbox and the production portal in front of it (building first if there is no build). */
export async function startStack(options: {
  sandboxPort: number;
  portalPort: number;
  sandboxEnv: Record<string, string>;
  /** Put bench/replay.ts between the portal and the sandbox: an instant (0 ms) or remote upstream. */
  replay?: { port: number; delayMs: number; keep?: boolean };
  /** A PostgreSQL for the portal's state instead of an embedded database of its own. */
  databaseUrl?: string;
  /** More portal instances on the same store and upstream (with databaseUrl: as on several machines). */
  morePortalPorts?: number[];
  /** Settings and output of the portal on a port, beside the stack's own (bench:observe: metrics and logs on or off). */
  portalOf?: (port: number) => { env?: Record<string, string>; stdio?: StdioOptions };
}): Promise<Running> {
  if (!existsSync('.next/BUILD_ID')) {
    console.log('[bench] no production build: running next build');
    if (spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { stdio: 'inherit' }).status !== 0)
      throw new Error('build failed');
  }
  // A process left listening by an earlier run would answer in place of the one started here, unnoticed.
  const ports = [
    options.sandboxPort,
    options.portalPort,
    ...(options.replay ? [options.replay.port] : []),
    ...(options.morePortalPorts ?? []),
  ];
  for (const port of ports) await assertPortFree(port);
  const key = 'bench-full-key';
  // A store of its own (or the given PostgreSQL) holding the bench's account.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-'));
  const storeEnv = {
    PORTAL_DATA_DIR: dataDir,
    DATABASE_URL: options.databaseUrl ?? '',
    PORTAL_USERS_FILE: path.join(dataDir, 'none.json'),
    // Instances sharing a PostgreSQL sign with one key (the tests' fixture); alone, each makes its own in its data directory
    // (an owner-only copy: the portal refuses a key file others can read).
    PORTAL_SIGNING_KEY_FILE: options.databaseUrl ? ownerOnlyTestKey() : '',
  };
  Object.assign(process.env, storeEnv);
  await addUser(BENCH_USER.email, 'admin', BENCH_USER.password);
  await closeStore();
  const sandboxUrl = `http://127.0.0.1:${options.sandboxPort}`;
  const portalUrl = `http://127.0.0.1:${options.portalPort}`;
  const sandbox = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: String(options.sandboxPort),
      SANDBOX_FULL_KEY: key,
      SANDBOX_NOW: '2026-11-20T12:00:00Z',
      ...options.sandboxEnv,
    },
    stdio: 'ignore',
  });
  const replay = options.replay
    ? spawn(process.execPath, ['--import', 'tsx', 'bench/replay.ts'], {
        env: {
          ...process.env,
          REPLAY_TARGET: sandboxUrl,
          REPLAY_PORT: String(options.replay.port),
          REPLAY_DELAY_MS: String(options.replay.delayMs),
          REPLAY_KEEP: options.replay.keep === false ? '0' : '1',
        },
        stdio: 'ignore',
      })
    : null;
  const upstreamUrl = options.replay ? `http://127.0.0.1:${options.replay.port}` : sandboxUrl;
  // BENCH_PORTAL_NODE_ARGS replaces the shipped arguments (e.g. to compare, or add --trace-gc with BENCH_PORTAL_LOG=file).
  const nodeArgs = process.env.BENCH_PORTAL_NODE_ARGS?.split(' ').filter(Boolean) ?? PORTAL_NODE_ARGS;
  // Behind the replay, records still name the sandbox's own origin for their logos.
  const portalEnv: Record<string, string> = options.replay ? { PORTAL_IMAGE_ORIGINS: sandboxUrl } : {};
  const spawnPortal = (port: number) =>
    spawnPortalServer({
      port,
      upstreamUrl,
      key,
      nodeArgs,
      env: { ...portalEnv, ...storeEnv, ...options.portalOf?.(port).env },
      stdio:
        options.portalOf?.(port).stdio ??
        (process.env.BENCH_PORTAL_LOG ? ['ignore', openSync(process.env.BENCH_PORTAL_LOG, 'w'), 'ignore'] : 'ignore'),
    });
  const portal = spawnPortal(options.portalPort);
  const more = (options.morePortalPorts ?? []).map(spawnPortal);
  const stop = () => [sandbox, portal, replay, ...more].forEach((child) => child?.kill('SIGTERM'));
  try {
    await waitFor(`${upstreamUrl}/api/v1/health`, { headers: { Authorization: `Bearer ${key}` } });
    await waitFor(`${portalUrl}/login`);
    for (const port of options.morePortalPorts ?? []) await waitFor(`http://127.0.0.1:${port}/login`);
  } catch (error) {
    stop();
    throw error;
  }
  return { sandbox, portal, portals: [portal, ...more], replay, sandboxUrl, upstreamUrl, portalUrl, key, portalEnv, stop };
}

/** A production portal (scripts/portal-server.mjs of `cwd`, the repository by default) on a loopback port. */
export function spawnPortalServer(options: {
  port: number;
  upstreamUrl: string;
  key: string;
  nodeArgs: string[];
  env: Record<string, string>;
  cwd?: string;
  stdio?: StdioOptions;
}): ChildProcess {
  return spawn(process.execPath, [...options.nodeArgs, 'scripts/portal-server.mjs'], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PICKS_API_BASE_URL: options.upstreamUrl,
      PICKS_API_KEY: options.key,
      AUTH_SECRET: BENCH_AUTH_SECRET,
      ...options.env,
      NEXTAUTH_URL: `http://127.0.0.1:${options.port}`,
      PORT: String(options.port),
    },
    stdio: options.stdio ?? 'ignore',
  });
}

/** Waits up to 10 s for the port to be free (a process stopped a moment ago is still exiting), then refuses. */
export async function assertPortFree(port: number): Promise<void> {
  const free = () =>
    new Promise<boolean>((resolve) => {
      const probe = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
  for (let waited = 0; !(await free()); waited += 200) {
    if (waited >= 10_000) throw new Error(`[bench] port ${port} is in use (a process left by an earlier run?): stop it first`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A fresh signed-in session (its own JWT) as a Cookie header. */
export async function signIn(portalUrl: string, user: { email: string; password: string } = BENCH_USER): Promise<string> {
  const csrf = await fetch(`${portalUrl}/api/auth/csrf`);
  const jar = csrf.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${portalUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    // The portal refuses a state-changing request that does not name it as its Origin.
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie: jar, origin: portalUrl },
    body: new URLSearchParams({ csrfToken, email: user.email, password: user.password, json: 'true' }),
  });
  const session = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c!.includes('portal.session='));
  if (!session) throw new Error(`bench sign-in failed (${res.status})`);
  return session;
}

/** Waits (2 minutes at most) until the portal's index of the licensed set finds `atLeast` records for `q`. */
export async function indexHolds(portalUrl: string, cookie: string, q: string, atLeast: number): Promise<void> {
  const found = async () =>
    (
      (await (await fetch(`${portalUrl}/api/records/search?kind=picks&q=${encodeURIComponent(q)}`, { headers: { cookie } })).json()) as {
        total?: number;
      }
    ).total ?? 0;
  for (const until = Date.now() + 120_000; (await found()) < atLeast;) {
    if (Date.now() > until) throw new Error('the index of the licensed set did not fill within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
