import type { StdioOptions } from 'node:child_process';
import { mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchOptions, writeResult } from './options';
import { median, signIn, startStack } from './support';

/**
 * `npm run bench:observe`: what metrics and logs cost a page view. Two portals of the same build on one
 * store and one replayed upstream (bench/replay.ts, answers from memory): ON counts every request and store
 * query (METRICS_TOKEN set, scraped once a round) and writes its request lines (LOG_LEVEL=info) to a file;
 * OFF counts nothing per request (no METRICS_TOKEN) and logs nothing (LOG_LEVEL=silent). Alternating rounds
 * of the signed-in /picks at 50 and 200 rows; each page's time over the upstream calls it made (asked again
 * and timed from here, as bench:pages does), medians; the target is ON ≤ 1.03× OFF at 50 rows.
 */

const options = benchOptions('bench:observe', 'What metrics and logs cost a page view (the same build with both on and off).', {
  rounds: { default: 40, help: 'alternating rounds' },
});
const ON = 3540;
const OFF = 3541;
const TOKEN = 'bench-metrics-token-0123456789abcdef';
const logFile = path.join(mkdtempSync(path.join(tmpdir(), 'bench-observe-')), 'on.log');

const stack = await startStack({
  sandboxPort: 4540,
  portalPort: ON,
  morePortalPorts: [OFF],
  sandboxEnv: { SANDBOX_RATE_LIMIT: '0' },
  replay: { port: 4541, delayMs: 0 },
  portalOf: (port): { env: Record<string, string>; stdio: StdioOptions } =>
    port === ON
      ? { env: { METRICS_TOKEN: TOKEN, LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, stdio: ['ignore', openSync(logFile, 'w'), 'ignore'] }
      : { env: { METRICS_TOKEN: '', METRICS_LISTEN: '', LOG_LEVEL: 'silent' }, stdio: 'ignore' },
});
const { upstreamUrl, key } = stack;
const origin = (port: number) => `http://127.0.0.1:${port}`;

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const start = performance.now();
  const res = await fetch(url, { headers, redirect: 'manual' });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  return performance.now() - start;
}

const upstreamCount = async () =>
  ((await (await fetch(`${upstreamUrl}/__replay/stats`)).json()) as { byRoute: Record<string, number> }).byRoute;

/** A page's time minus the upstream calls it made (counted by the replay, asked again and timed from here). */
async function overUpstream(port: number, page: string, cookie: string, routes: Record<string, string>): Promise<number> {
  const before = await upstreamCount();
  const ms = await timed(`${origin(port)}${page}`, { cookie });
  const after = await upstreamCount();
  let upstream = 0;
  for (const [route, count] of Object.entries(after))
    for (let i = 0; i < count - (before[route] ?? 0); i += 1) {
      const again = routes[route];
      if (!again) throw new Error(`the page called ${route}, which this benchmark does not replay`);
      upstream += await timed(`${upstreamUrl}${again}`, { Authorization: `Bearer ${key}` });
    }
  return ms - upstream;
}

try {
  const cookies: Record<number, string> = { [ON]: await signIn(origin(ON)), [OFF]: await signIn(origin(OFF)) };
  const rows = [50, 200];
  const samples = new Map(rows.map((limit) => [limit, { on: [] as number[], off: [] as number[] }]));
  for (let round = 0; round <= options.rounds; round += 1) {
    for (const limit of round % 2 === 0 ? rows : [...rows].reverse()) {
      const routes = { me: '/api/v1/me', health: '/api/v1/health', picks: `/api/v1/picks?limit=${limit}` };
      const order = round % 2 === 0 ? [ON, OFF] : [OFF, ON];
      const ms: Record<number, number> = {};
      for (const port of order) ms[port] = await overUpstream(port, `/picks?limit=${limit}`, cookies[port]!, routes);
      if (round === 0) continue; // warm-up
      samples.get(limit)!.on.push(ms[ON]!);
      samples.get(limit)!.off.push(ms[OFF]!);
    }
    // Prometheus would scrape ON every few seconds: once a round here, so rendering the registry is paid too.
    const scrape = await fetch(`${origin(ON)}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (!scrape.ok) throw new Error(`/metrics answered ${scrape.status}`);
    await scrape.text();
  }
  const table = rows.map((limit) => {
    const s = samples.get(limit)!;
    const [on, off] = [median(s.on), median(s.off)];
    return { page: `/picks ${limit} rows`, onMs: +on.toFixed(1), offMs: +off.toFixed(1), ratio: +(on / off).toFixed(3) };
  });
  console.log(`\n[bench] time over the upstream, medians of ${options.rounds} rounds: metrics and logs on (${ON}) and off (${OFF})`);
  console.table(table);
  console.log(`[bench] the ON portal's log: ${logFile}`);
  await writeResult('observe', { rounds: options.rounds, rows: table });
} finally {
  stack.stop();
}
