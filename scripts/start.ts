import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, parseConfig } from '../lib/config';
import { demoAccounts, ensureDemoUsers } from '../lib/auth/demo-users';
import { closeStore, getStore, StoreError } from '../lib/store';
import { createPortalLogger } from '../lib/log/create.mjs';
import { PORTAL_NODE_ARGS } from './portal-node-options';

/**
 * `npm start`: the portal's production server. With no PICKS_API_BASE_URL it starts the embedded
 * sandbox upstream first and points the portal at it, with demo users for each role. It validates the
 * configuration before anything else and builds the app if no build exists. `--dev` runs the same
 * server in development mode (Next's dev compiler and hot reload).
 */

const dev = process.argv.includes('--dev');
const children: ChildProcess[] = [];
// The same logger as the portal's server (lib/log/): JSON lines, or readable ones on a terminal; failures on stderr.
const logger = createPortalLogger().child({ component: 'portal' });
const log = (line: string) => logger.info(line);

function fail(message: string): never {
  createPortalLogger({ fd: 2 }).child({ component: 'portal' }).fatal(message);
  shutdown(1);
}

function shutdown(code: number): never {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  process.exit(code);
}

let shuttingDown = false;

/** A signal: handed to the children, and this process waits for the portal to drain (lib/start/shutdown.ts); a second one ends it at once. */
let signalled = false;
function stopOnSignal(code: number): void {
  if (signalled) shutdown(code);
  signalled = true;
  shuttingDown = true;
  const alive = children.filter((child) => child.exitCode === null && child.signalCode === null);
  for (const child of alive) child.kill('SIGTERM');
  void Promise.all(alive.map((child) => new Promise((resolve) => child.once('exit', resolve)))).then(() => process.exit(code));
}
process.on('SIGINT', () => stopOnSignal(130));
process.on('SIGTERM', () => stopOnSignal(143));

async function waitFor(url: string, init: RequestInit, what: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) fail(`${what} exited (code ${child.exitCode}) before it was ready.`);
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(2000), redirect: 'manual' });
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  fail(`${what} was not ready after ${timeoutMs / 1000} s (${url}).`);
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(command, args, { env, stdio: 'inherit' });
  children.push(child);
  child.on('exit', (code, signal) => {
    if (!shuttingDown) {
      createPortalLogger({ fd: 2 })
        .child({ component: 'portal' })
        .error(`${args.slice(0, 2).join(' ')} stopped (${signal ?? `code ${code}`}).`);
      shutdown(code ?? 1);
    }
  });
  return child;
}
process.on('exit', () => (shuttingDown = true));

const env: NodeJS.ProcessEnv = { NEXT_TELEMETRY_DISABLED: '1', ...process.env };

function sandboxSecret(dataDir: string): string {
  const file = path.join(dataDir, 'sandbox-auth-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
const sandboxMode = !env.PICKS_API_BASE_URL;
const demoUsers: { email: string; role: string; password: string }[] = [];

if (sandboxMode) {
  const sandboxPort = env.SANDBOX_PORT ?? '4010';
  const key = env.SANDBOX_FULL_KEY ?? 'sandbox-full-key';
  env.PICKS_API_BASE_URL = `http://127.0.0.1:${sandboxPort}`;
  env.PICKS_API_KEY = key;
  // A session secret made once per data directory and kept there (owner-only), so a restart neither signs
  // everyone out nor records a settings change.
  env.AUTH_SECRET ||= sandboxSecret(env.PORTAL_DATA_DIR || '.data');
  env.NEXTAUTH_URL ??= `http://localhost:${env.PORT ?? 3000}`;
}
// Only this script may say the upstream is the sandbox it started: demo accounts work only then.
env.PORTAL_SANDBOX = sandboxMode ? '1' : '';

let config;
try {
  config = parseConfig({ ...env, NODE_ENV: dev ? 'development' : 'production' });
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}
env.NEXTAUTH_URL ??= `http://localhost:${config.PORT}`; // --dev only: production requires it (lib/config/)

// The store first: schema brought up to date, a users file from before imported once, and a PostgreSQL
// that is not up yet waited for (with backoff, saying so). The portal process opens it again for itself.
try {
  const store = await getStore({ attempts: Infinity, log: (line) => log(line.replace(/^\[store\] /, '')) });
  log(`State: ${store.target.label}`);
} catch (error) {
  fail(error instanceof StoreError ? error.message : `The store could not be opened: ${(error as Error).message}`);
}
if (!sandboxMode) {
  const demo = await demoAccounts().catch(() => []);
  if (demo.length > 0)
    log(
      `${demo.length} demo account(s) in the store are refused: the upstream is not the sandbox (${demo.join(', ')}). Remove them with \`npm run users -- remove <email>\`.`,
    );
}

if (sandboxMode) {
  const sandbox = run(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    ...env,
    SANDBOX_PORT: env.SANDBOX_PORT ?? '4010',
    SANDBOX_BRIEF: '1',
  });
  await waitFor(
    `${env.PICKS_API_BASE_URL}/api/v1/health`,
    { headers: { Authorization: `Bearer ${env.PICKS_API_KEY}` } },
    'The sandbox',
    sandbox,
    30_000,
  );
  demoUsers.push(...(await ensureDemoUsers()));
}
await closeStore();
const url = `http://localhost:${config.PORT}`;
// The first screen: where to go and how to sign in, then what is left unset (each optional), before the server's own lines.
if (demoUsers.length > 0) {
  log(`Sign in at ${url} (sandbox upstream: PICKS_API_BASE_URL is not set) as:`);
  for (const user of demoUsers) log(`  ${user.role.padEnd(8)} ${user.email.padEnd(26)} password: ${user.password}`);
}
const unset = [
  !config.SMTP_URL && 'SMTP_URL (alert e-mails)',
  !config.oidc && 'OIDC_ISSUER (single sign-on)',
  !config.METRICS_TOKEN && !config.METRICS_LISTEN && 'METRICS_TOKEN (/metrics)',
  sandboxMode && !config.LOG_REQUESTS && 'LOG_REQUESTS=1 (a line per request)',
].filter(Boolean);
if (unset.length > 0) log(`Not set, optional (docs/configuration.md): ${unset.join(', ')}`);
// Made here (the configuration is read first in this process): the portal's own process finds it already there.
if (config.secretKey.made)
  log(`Made the key that seals delivery and webhook secrets: ${config.secretKey.file} (keep it with every backup)`);

const nextBin = 'node_modules/next/dist/bin/next';
if (!dev && !existsSync('.next/BUILD_ID')) {
  // Next's own report (a table of every route) goes to a file: the terminal keeps the few lines above in view.
  const buildLog = path.join(env.PORTAL_DATA_DIR || '.data', 'next-build.log');
  log(`No production build yet: building the app once (a few minutes; its report in ${buildLog}).`);
  mkdirSync(path.dirname(buildLog), { recursive: true, mode: 0o700 });
  const build = spawnSync(process.execPath, [nextBin, 'build'], {
    env: { ...env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const report = `${build.stdout?.toString() ?? ''}${build.stderr?.toString() ?? ''}`;
  writeFileSync(buildLog, report, { mode: 0o600 });
  if (build.status !== 0) {
    process.stderr.write(`${report.split('\n').slice(-40).join('\n')}\n`);
    fail(`The build failed (its last lines above; all of it in ${buildLog}).`);
  }
}

const portalArgs = dev ? ['scripts/portal-server.mjs'] : [...PORTAL_NODE_ARGS, 'scripts/portal-server.mjs'];
const portal = run(process.execPath, portalArgs, {
  ...env,
  PORT: String(config.PORT),
  NODE_ENV: dev ? 'development' : 'production',
});
await waitFor(`http://127.0.0.1:${config.PORT}/login`, {}, 'The portal', portal, 120_000);

log(`Ready: ${url} (upstream ${env.PICKS_API_BASE_URL}${sandboxMode ? ', the sandbox' : ''})`);
