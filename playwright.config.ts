import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from '@playwright/test';
import { E2E, upstreamEnv } from './tests/support/ports';
import type { SharedServer } from './tests/support/start-servers';

/**
 * Browser tests drive the system Chromium (Debian's package; `npx playwright install` cannot work on
 * these machines) against the production build started exactly as a user would: `npm start`.
 * The main portal runs on the embedded sandbox. Four more portals from the same build point at the
 * same sandbox with other keys, or at a closed port, so every upstream error page is provoked for real.
 */

const secret = 'e2e-only-secret-not-for-production-0123456789';
/** The portal's state is fresh each run: its data dir is emptied, and `staff` portals get a users file to import. */
const portal = (port: number, env: Record<string, string>, users: 'staff' | 'none' = 'staff'): SharedServer => ({
  // Only the main portal polls for changes: the others count upstream requests or have a tiny budget (changes.spec.ts polls its own).
  // Each portal's output goes to its own file (E2E.logFile), not between the test results: npm test scans them
  // for the canary key, and a failing test's portal log is there to read.
  command: `npm start > ${E2E.logFile(port)} 2>&1`,
  url: `http://127.0.0.1:${port}/login`,
  portal: { dataDir: E2E.dataDir(port), users },
  env: {
    PORT: String(port),
    DATABASE_URL: '',
    PORTAL_DATA_DIR: E2E.dataDir(port),
    PORTAL_USERS_FILE: `${E2E.dataDir(port)}/users.json`,
    NEXTAUTH_URL: `http://localhost:${port}`,
    CHANGES_POLL_SECONDS: port === E2E.port ? '300' : '0',
    DELIVERY_SPOOL_MIN_FREE_MB: '1', // not this machine's free disk space
    AUDIT_CHECKPOINT_EVERY: '5', // the audit trail sealed often enough for proof.spec.ts to see checkpoints
    ...env,
  },
});
const upstream = `http://127.0.0.1:${E2E.sandboxPort}`;
/** A portal behind tests/support/fault-proxy.ts, with a gate of its own; the proxy changes /me from test to test. */
const behindFaultProxy = (port: number) =>
  portal(port, {
    ...upstreamEnv(`http://127.0.0.1:${E2E.faultProxyPort}`, E2E.sandboxKey),
    AUTH_SECRET: secret,
    PICKS_API_MAX_RETRIES: '1',
    PICKS_API_TIMEOUT_MS: '1500',
    PORTAL_IMAGE_ORIGINS: upstream,
    PICKS_ME_CACHE_SECONDS: '0',
  });

/** Specs that start every server they use (their own sandbox, portals, PostgreSQL): run after this suite (playwright.standalone.config.ts). */
export const STANDALONE_SPECS = [
  'alerting.spec.ts',
  'alerting-states.spec.ts',
  'shutdown.spec.ts',
  'metrics.spec.ts',
  'logs.spec.ts',
  'deployment.spec.ts',
  'proof-rotation.spec.ts',
  'upgrade.spec.ts',
  'history.spec.ts',
  'tokens.spec.ts',
  'tokens-instances.spec.ts',
];

/**
 * Specs that change what other specs read on the shared portals — the fault proxy's behaviour, a person's
 * preferences, the users, the agreed cadences — or that need the shared portals quiet (axe's walk, the table's
 * row counts): they run one at a time, beside the specs that only read or use servers of their own.
 */
export const ONE_AT_A_TIME = [
  'audit.spec.ts',
  'coverage.spec.ts',
  'export.spec.ts',
  'faults.spec.ts',
  'hostile.spec.ts',
  'leak-faults.spec.ts',
  'proof.spec.ts',
  'security-limits.spec.ts',
  'preferences.spec.ts',
  'everyday.spec.ts',
  'panels.spec.ts',
  'feed-health.spec.ts',
  'admin.spec.ts',
  'table.spec.ts',
  'journeys.spec.ts',
  'glance.spec.ts',
];
const specs = (names: string[]) => names.map((spec) => `**/${spec}`);

/**
 * Debian's Chromium headless shell (package chromium-headless-shell): the headless build Playwright itself runs.
 * The full browser's headless mode also runs its own UI's renderers and a GPU process beside every page, which
 * made each browser test about a third slower on two cores. The full browser where the shell is not installed.
 */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');

/** The shared servers of the main suite: the main portal (with the sandbox), four more on other keys, the fault proxy and three portals behind it. */
const SERVERS: SharedServer[] = [
  portal(
    E2E.port,
    {
      SANDBOX_PORT: String(E2E.sandboxPort),
      PICKS_API_BASE_URL: '',
      SANDBOX_RATE_LIMIT: '0',
      SANDBOX_NOW: E2E.now,
      SANDBOX_FULL_KEY: E2E.sandboxKey,
    },
    'none', // sandbox mode: `npm start` adds the demo accounts itself
  ),
  portal(E2E.suspendedPort, { ...upstreamEnv(upstream, 'sandbox-suspended-key'), AUTH_SECRET: secret }),
  // Also stands behind a "proxy": loopback is trusted, so X-Forwarded-For names the client (security.spec.ts).
  portal(E2E.badKeyPort, { ...upstreamEnv(upstream, 'e2e-wrong-key'), AUTH_SECRET: secret, TRUSTED_PROXIES: '127.0.0.1, ::1' }),
  portal(E2E.throttledPort, { ...upstreamEnv(upstream, 'sandbox-throttled-key'), AUTH_SECRET: secret }),
  portal(E2E.downPort, { ...upstreamEnv('http://127.0.0.1:9', 'any-key'), AUTH_SECRET: secret, PICKS_API_MAX_RETRIES: '1' }),
  {
    command: 'node --import tsx tests/support/fault-proxy-main.ts',
    url: `http://127.0.0.1:${E2E.faultProxyPort}/__requests`,
    env: { FAULT_PORT: String(E2E.faultProxyPort), FAULT_UPSTREAM: upstream },
  },
  behindFaultProxy(E2E.faultyPort),
  behindFaultProxy(E2E.pausedPort),
  behindFaultProxy(E2E.securityPort),
];

export default defineConfig({
  testDir: 'tests/e2e',
  testIgnore: specs(STANDALONE_SPECS),
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // One worker more than the cores (two on two): the specs of ONE_AT_A_TIME on one, the others beside them. The
  // browser tests spend much of their time waiting on servers and timers; the cores were a quarter idle with one each.
  workers: Number(process.env.E2E_WORKERS ?? availableParallelism() + 1),
  projects: [
    { name: 'one-at-a-time', testMatch: specs(ONE_AT_A_TIME), workers: 1 },
    { name: 'beside', testIgnore: specs([...ONE_AT_A_TIME, ...STANDALONE_SPECS]) },
  ],
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://localhost:${E2E.port}`,
    // No trace by default: recording one (a DOM snapshot at every action, kept only on failure) took a quarter
    // of every test's time on two cores, and CI keeps only the output. `npx playwright test <spec> --trace on`.
    trace: 'off',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
        '--disable-gpu',
      ],
    },
  },
  // Started all at once by one launcher (Playwright starts its web servers one after another).
  webServer: {
    command: 'node --conditions=react-server --import tsx tests/support/start-servers.ts',
    url: `http://127.0.0.1:${E2E.readyPort}/`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: 'pipe',
    env: { E2E_READY_PORT: String(E2E.readyPort), E2E_SERVERS: JSON.stringify(SERVERS) },
  },
});
