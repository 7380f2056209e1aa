import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addUser } from '../lib/auth/users';
import { withPortalNodeOptions } from './portal-node-options';

/**
 * `npm run bench:export`: the portal's export against the physical floor, in one run.
 * Sandbox with BENCH_PICKS (100,000) picks and throttling off; the portal's production build.
 * Alternating rounds of (a) a raw walk of the API (fetch + JSON.parse every page at limit 200),
 * (b) the portal's CSV export read to the end over HTTP, (c) its JSON export. Prints medians, the
 * ratios b/a and c/a, time to first byte, and the portal's peak memory during exports against idle.
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PICKS = process.env.BENCH_PICKS ?? '100000';
const SANDBOX_PORT = 4510;
const PORTAL_PORT = 3510;
const KEY = 'bench-full-key';
const sandboxUrl = `http://127.0.0.1:${SANDBOX_PORT}`;
const portalUrl = `http://127.0.0.1:${PORTAL_PORT}`;
const children: ChildProcess[] = [];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function waitFor(url: string, init: RequestInit = {}) {
  for (let i = 0; i < 600; i += 1) {
    try {
      const res = await fetch(url, { ...init, redirect: 'manual' });
      if (res.status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

/** Resident memory of a process and its descendants, in MB (Linux /proc). */
function rssMb(pid: number): number {
  const pids = [pid];
  for (let i = 0; i < pids.length; i += 1) {
    for (const task of readdirSync(`/proc/${pids[i]}/task`)) {
      try {
        for (const child of readFileSync(`/proc/${pids[i]}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) pids.push(Number(child));
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
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function signIn(): Promise<string> {
  const csrf = await fetch(`${portalUrl}/api/auth/csrf`);
  const jar = csrf.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${portalUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie: jar },
    body: new URLSearchParams({ csrfToken, email: 'bench@example.com', password: 'bench-password', json: 'true' }),
  });
  return [jar, ...res.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
}

async function rawWalk(): Promise<{ ms: number; records: number; firstPageMs: number }> {
  const start = performance.now();
  let cursor: string | null = null;
  let records = 0;
  let firstPageMs = 0;
  do {
    const url = `${sandboxUrl}/api/v1/picks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = (await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as { data: unknown[]; page: { nextCursor: string | null; hasMore: boolean } };
    if (!firstPageMs) firstPageMs = performance.now() - start;
    records += body.data.length;
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return { ms: performance.now() - start, records, firstPageMs };
}

async function portalExport(format: 'csv' | 'json', cookie: string, pid: number): Promise<{ ms: number; bytes: number; ttfbMs: number; peakMb: number }> {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 25);
  const start = performance.now();
  const res = await fetch(`${portalUrl}/api/export/picks?format=${format}`, { headers: { cookie } });
  if (!res.ok || !res.body) throw new Error(`export ${format}: HTTP ${res.status}`);
  const reader = res.body.getReader();
  let bytes = 0;
  let ttfbMs = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!ttfbMs) ttfbMs = performance.now() - start;
    bytes += value.byteLength;
  }
  clearInterval(sampler);
  return { ms: performance.now() - start, bytes, ttfbMs, peakMb };
}

try {
  if (!existsSync('.next/BUILD_ID')) {
    console.log('[bench] no production build: running next build');
    if (spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  }
  const usersFile = path.join(mkdtempSync(path.join(tmpdir(), 'bench-')), 'users.json');
  await addUser(usersFile, 'bench@example.com', 'editor', 'bench-password');

  const sandbox = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: { ...process.env, SANDBOX_PORT: String(SANDBOX_PORT), SANDBOX_PICKS: PICKS, SANDBOX_RATE_LIMIT: '0', SANDBOX_FULL_KEY: KEY, SANDBOX_NOW: '2026-11-20T12:00:00Z' },
    stdio: 'ignore',
  });
  children.push(sandbox);
  await waitFor(`${sandboxUrl}/api/v1/health`, { headers: { Authorization: `Bearer ${KEY}` } });

  const portal = spawn(process.execPath, ['node_modules/next/dist/bin/next', 'start', '--port', String(PORTAL_PORT)], {
    env: { ...process.env, NODE_OPTIONS: process.env.BENCH_PORTAL_NODE_OPTIONS ?? withPortalNodeOptions(process.env.NODE_OPTIONS), NODE_ENV: 'production', PICKS_API_BASE_URL: sandboxUrl, PICKS_API_KEY: KEY, AUTH_SECRET: 'bench-secret-bench-secret-bench-secret', PORTAL_USERS_FILE: usersFile, NEXTAUTH_URL: portalUrl },
    stdio: 'ignore',
  });
  children.push(portal);
  await waitFor(`${portalUrl}/login`);
  const cookie = await signIn();

  await portalExport('csv', cookie, portal.pid!); // warm-up: route compiled into memory, connections open
  await rawWalk();
  await new Promise((r) => setTimeout(r, 1000));
  const idleMb = rssMb(portal.pid!);

  const a: Awaited<ReturnType<typeof rawWalk>>[] = [];
  const b: Awaited<ReturnType<typeof portalExport>>[] = [];
  const c: Awaited<ReturnType<typeof portalExport>>[] = [];
  const cpu = { sandboxRaw: [] as number[], sandboxCsv: [] as number[], portalCsv: [] as number[], portalJson: [] as number[] };
  const measured = async <T>(work: () => Promise<T>, into: { sandbox?: number[]; portal?: number[] }) => {
    const [s0, p0] = [cpuMs(sandbox.pid!), cpuMs(portal.pid!)];
    const result = await work();
    into.sandbox?.push(cpuMs(sandbox.pid!) - s0);
    into.portal?.push(cpuMs(portal.pid!) - p0);
    return result;
  };
  for (let round = 1; round <= ROUNDS; round += 1) {
    a.push(await measured(rawWalk, { sandbox: cpu.sandboxRaw }));
    b.push(await measured(() => portalExport('csv', cookie, portal.pid!), { sandbox: cpu.sandboxCsv, portal: cpu.portalCsv }));
    c.push(await measured(() => portalExport('json', cookie, portal.pid!), { portal: cpu.portalJson }));
    console.log(`[bench] round ${round}: raw ${a.at(-1)!.ms.toFixed(0)} ms, csv ${b.at(-1)!.ms.toFixed(0)} ms, json ${c.at(-1)!.ms.toFixed(0)} ms`);
  }

  const results = {
    picks: Number(PICKS),
    recordsPerWalk: a[0]!.records,
    rounds: ROUNDS,
    medianMs: { raw: median(a.map((x) => x.ms)), csv: median(b.map((x) => x.ms)), json: median(c.map((x) => x.ms)) },
    ratio: { csv: median(b.map((x) => x.ms)) / median(a.map((x) => x.ms)), json: median(c.map((x) => x.ms)) / median(a.map((x) => x.ms)) },
    firstByteMs: { csv: median(b.map((x) => x.ttfbMs)), json: median(c.map((x) => x.ttfbMs)), rawFirstPage: median(a.map((x) => x.firstPageMs)) },
    memoryMb: { idle: idleMb, peak: Math.max(...b.map((x) => x.peakMb), ...c.map((x) => x.peakMb)) },
    bytes: { csv: b[0]!.bytes, json: c[0]!.bytes },
    cpuMs: { sandboxDuringRaw: median(cpu.sandboxRaw), sandboxDuringCsv: median(cpu.sandboxCsv), portalCsv: median(cpu.portalCsv), portalJson: median(cpu.portalJson) },
  };
  console.log('\n[bench] export of every pick, medians of', ROUNDS, 'alternating rounds');
  console.log(`  records per walk       ${results.recordsPerWalk} (sandbox seeded with ${PICKS})`);
  console.log(`  (a) raw API walk       ${results.medianMs.raw.toFixed(0)} ms`);
  console.log(`  (b) portal CSV export  ${results.medianMs.csv.toFixed(0)} ms   b/a = ${results.ratio.csv.toFixed(3)}   (${(results.bytes.csv / 1e6).toFixed(1)} MB)`);
  console.log(`  (c) portal JSON export ${results.medianMs.json.toFixed(0)} ms   c/a = ${results.ratio.json.toFixed(3)}   (${(results.bytes.json / 1e6).toFixed(1)} MB)`);
  console.log(`  first byte             csv ${results.firstByteMs.csv.toFixed(0)} ms, json ${results.firstByteMs.json.toFixed(0)} ms; one raw page ${results.firstByteMs.rawFirstPage.toFixed(0)} ms (target: page + 50 ms)`);
  console.log(`  portal memory          idle ${results.memoryMb.idle.toFixed(0)} MB, peak during exports ${results.memoryMb.peak.toFixed(0)} MB, growth ${(results.memoryMb.peak - results.memoryMb.idle).toFixed(0)} MB (target ≤ 64 MB)`);
  console.log(`  CPU time (median)      sandbox ${results.cpuMs.sandboxDuringRaw} ms per raw walk, ${results.cpuMs.sandboxDuringCsv} ms per CSV export; portal ${results.cpuMs.portalCsv} ms per CSV, ${results.cpuMs.portalJson} ms per JSON export (2 cores shared by sandbox, portal and reader)`);
  await mkdir('bench-results', { recursive: true });
  await writeFile('bench-results/export.json', `${JSON.stringify(results, null, 2)}\n`);
} finally {
  for (const child of children) child.kill('SIGTERM');
}
