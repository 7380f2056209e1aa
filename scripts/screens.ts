import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';

/**
 * `npm run screens`: every page of the portal for every role, at a desktop (1440×900) and a phone (390×844),
 * light and dark, on the sandbox (`npm start` on a free port with a fresh data directory), signed in as each
 * demo account. Written to docs/screens/<role>/<page>-<size>-<scheme>.jpg (committed: the docs show them),
 * the desktop at half scale; the first screen of each page, as a person sees it on opening it. Needs a build
 * (`npm start` makes one if none exists).
 */

const ROLES = ['viewer', 'editor', 'manager', 'admin'] as const;
type Role = (typeof ROLES)[number];
const EVERY: readonly Role[] = ROLES;
const PAGES: [name: string, url: string, roles: readonly Role[]][] = [
  ['overview', '/', EVERY],
  ['licence', '/licence', EVERY],
  ['picks', '/picks', EVERY],
  ['results', '/results', EVERY],
  ['changes', '/changes', EVERY],
  ['history', '/history', EVERY],
  ['health', '/health', EVERY],
  ['coverage', '/coverage', ['manager', 'admin']],
  ['exports', '/exports', ['editor', 'admin']],
  ['deliveries', '/deliveries', ['editor', 'admin']],
  ['tokens', '/tokens', ['editor', 'admin']],
  ['developers', '/developers', ['editor', 'admin']],
  ['users', '/admin/users', ['admin']],
  ['audit', '/admin/audit', ['admin']],
  ['proofs', '/admin/proofs', ['admin']],
  ['alerts', '/alerts', ['admin']],
];
const SIZES = [
  { name: 'desktop', width: 1440, height: 900, scale: 0.5 },
  { name: 'phone', width: 390, height: 844, scale: 1 },
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
    // What it prints is one JSON line each (lib/log); the portal says "Ready: <url>" once it serves.
    if (/"msg":"Ready: /.test(chunk.toString())) resolve();
  });
  portal.on('exit', (code) => reject(new Error(`npm start ended (${code}) before the portal was ready`)));
});

async function signIn(page: Page, role: Role) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email').fill(`${role}@demo.picks.test`);
  await page.getByLabel('Password').fill(`demo-${role}-pass`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  for (const role of ROLES) {
    mkdirSync(`docs/screens/${role}`, { recursive: true });
    for (const size of SIZES) {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({
          viewport: { width: size.width, height: size.height },
          colorScheme: scheme,
          deviceScaleFactor: size.scale,
        });
        const page = await context.newPage();
        await signIn(page, role);
        await page.waitForTimeout(1_000); // the preferences sync after a sign-in may reload the page once
        for (const [name, url, roles] of PAGES) {
          if (!roles.includes(role)) continue;
          await page.goto(`${origin}${url}`);
          if (url === '/coverage') await page.getByTestId('coverage-report').waitFor({ timeout: 60_000 });
          // Streamed parts revealed (React batches reveals up to 300 ms), hydrated, times in the zone (<AfterLoad>).
          await page.waitForFunction(() => !document.querySelector('div[hidden][id^="S:"]'));
          await page.locator('html[data-ready]').waitFor({ state: 'attached' });
          const file = `docs/screens/${role}/${name}-${size.name}-${scheme}.jpg`;
          await page.screenshot({ path: file, type: 'jpeg', quality: 70 });
          console.log(`[screens] ${file}`);
        }
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  process.kill(-portal.pid!, 'SIGTERM');
}
