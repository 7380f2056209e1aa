import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PAGE_SIZE, parseFilters } from '../lib/picks-api/filters';
import { assertPortFree, BENCH_AUTH_SECRET, waitFor } from './support';

/**
 * The bare Next.js page the benchmarks measure the portal against (bench/bare-page: the same `next`, no
 * session, no styles, a plain server-rendered table of the same rows, and a bare dynamic page at `/`). It
 * is built in a copy under bench-results/ so that Turbopack sees nothing of the portal, with node_modules
 * hard-linked (copied if links fail).
 */

export const BARE_DIR = 'bench-results/bare-page';
const NEXT = 'node_modules/next/dist/bin/next';

export function buildNext(cwd: string, label: string) {
  const start = performance.now();
  const run = spawnSync(process.execPath, [NEXT, 'build'], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) throw new Error(`${label} build failed`);
  console.log(`[bench] built ${label} in ${((performance.now() - start) / 1000).toFixed(0)} s`);
}

export const bareBuilt = () => existsSync(`${BARE_DIR}/.next/BUILD_ID`);

/** A digest of bench/bare-page's files: a build made from other sources is made again. */
function sourceDigest(): string {
  const hash = createHash('sha256');
  const files = readdirSync('bench/bare-page', { recursive: true, withFileTypes: true })
    .filter((file) => file.isFile())
    .map((file) => path.join(file.parentPath, file.name))
    .sort();
  for (const file of files) hash.update(`${file}\n`).update(readFileSync(file));
  return hash.digest('hex');
}

/** Copies and builds the bare page: always, or with `onlyIfStale` only when its build is missing or out of date. */
export function prepareBarePage(options: { onlyIfStale?: boolean } = {}) {
  const digest = sourceDigest();
  const built = `${BARE_DIR}/.source-digest`;
  if (options.onlyIfStale && bareBuilt() && existsSync(built) && readFileSync(built, 'utf8') === digest) return;
  rmSync(BARE_DIR, { recursive: true, force: true });
  cpSync('bench/bare-page', BARE_DIR, { recursive: true });
  if (spawnSync('cp', ['-al', 'node_modules', `${BARE_DIR}/node_modules`]).status !== 0)
    cpSync('node_modules', `${BARE_DIR}/node_modules`, { recursive: true });
  buildNext(BARE_DIR, 'the bare page'); // with its own copy of next and react
  writeFileSync(built, digest);
}

export interface BarePage {
  url: string;
  process: ChildProcess;
  stop: () => void;
}

/** `next start` of the bare page on a loopback port, reading its rows from `upstreamUrl` with `key`. */
export async function startBarePage(port: number, upstreamUrl: string, key: string): Promise<BarePage> {
  await assertPortFree(port);
  const child = spawn(process.execPath, [NEXT, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: BARE_DIR,
    env: { ...process.env, NODE_ENV: 'production', BARE_UPSTREAM: upstreamUrl, BARE_KEY: key, BARE_AUTH_SECRET: BENCH_AUTH_SECRET },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => child.kill('SIGTERM');
  try {
    await waitFor(`${url}/`);
  } catch (error) {
    stop();
    throw error;
  }
  return { url, process: child, stop };
}

/**
 * The bare page's counterpart of a portal address under load: the same rows for /picks and /results (the
 * portal's filters in the API's own form, so the upstream does the same work; /results as /picks), and the
 * bare dynamic page for the rest.
 */
export function barePathFor(portalPath: string): string {
  const url = new URL(portalPath, 'http://portal');
  if (url.pathname !== '/picks' && url.pathname !== '/results') return '/';
  const parsed = parseFilters('picks', url.searchParams);
  if (!parsed.ok) throw new Error(`bench path ${portalPath}: ${parsed.error.message}`);
  const { cursor: _cursor, ...filters } = { limit: DEFAULT_PAGE_SIZE, ...parsed.filters };
  const query = Object.entries(filters).map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`);
  return `/rows?${query.join('&')}`;
}
