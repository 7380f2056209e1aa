import { defineConfig } from '@playwright/test';

/**
 * Browser tests drive the system Chromium (Debian's package; `npx playwright install` cannot work on
 * these machines) against the production build started exactly as a user would: `npm start`, which
 * brings up the embedded sandbox. Ports are the e2e ones so a running dev portal is left alone.
 */

const PORT = Number(process.env.E2E_PORT ?? 3200);
const SANDBOX_PORT = Number(process.env.E2E_SANDBOX_PORT ?? 4210);

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://localhost:${PORT}`,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-gpu'],
    },
  },
  webServer: {
    command: 'npm start',
    url: `http://127.0.0.1:${PORT}/login`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'pipe',
    env: {
      PORT: String(PORT),
      SANDBOX_PORT: String(SANDBOX_PORT),
      PORTAL_USERS_FILE: '.data/e2e-users.json',
      PICKS_API_BASE_URL: '',
    },
  },
});
