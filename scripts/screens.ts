import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';

/**
 * `npm run screens`: every page of the portal, at a desktop (1440×900) and a phone (390×844), light and
 * dark, on the sandbox (`npm start` on a free port with a fresh data directory), signed in as the demo
 * admin. The desktop light set goes to docs/screens/ at half scale (committed: the docs show them); the
 * rest to bench-results/screens/ (ignored by git). Needs a build (`npm start` makes one if none exists).
 */

const PAGES = [
  ['overview', '/'],
  ['licence', '/licence'],
  ['picks', '/picks'],
  ['results', '/results'],
  ['changes', '/changes'],
  ['health', '/health'],
  ['coverage', '/coverage'],
  ['exports', '/exports'],
  ['deliveries', '/deliveries'],
  ['users', '/admin/users'],
  ['audit', '/admin/audit'],
  ['alerts', '/alerts'],
] as const;
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'screens-'));
const portal = spawn('npm', ['start'], {
  env: { ...process.env, PORT: String(port), PORTAL_DATA_DIR: dataDir, PORTAL_USERS_FILE: path.join(dataDir, 'users.json') },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
const origin = `http://localhost:${port}`;
await new Promise<void>((resolve, reject) => {
  portal.stdout!.on('data', (chunk: Buffer) => {
    if (chunk.toString().includes('[portal] Ready')) resolve();
  });
  portal.on('exit', (code) => reject(new Error(`npm start ended (${code}) before the portal was ready`)));
});

async function signIn(page: Page) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email').fill('admin@demo.picks.test');
  await page.getByLabel('Password').fill('demo-admin-pass');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  mkdirSync('docs/screens', { recursive: true });
  mkdirSync('bench-results/screens', { recursive: true });
  for (const size of SIZES) {
    for (const scheme of ['light', 'dark'] as const) {
      const committed = size.name === 'desktop' && scheme === 'light';
      const context = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        colorScheme: scheme,
        deviceScaleFactor: committed ? 0.5 : 1,
      });
      const page = await context.newPage();
      await signIn(page);
      for (const [name, url] of PAGES) {
        await page.goto(`${origin}${url}`);
        if (url === '/coverage') await page.getByTestId('coverage-report').waitFor({ timeout: 60_000 });
        await page.waitForLoadState('networkidle');
        const file = committed ? `docs/screens/${name}.png` : `bench-results/screens/${name}-${size.name}-${scheme}.png`;
        await page.screenshot({ path: file });
        console.log(`[screens] ${file}`);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  process.kill(-portal.pid!, 'SIGTERM');
}
