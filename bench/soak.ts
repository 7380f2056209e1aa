import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addUser } from '../lib/auth/users';
import { closeStore } from '../lib/store';
import { benchOptions, writeResult } from './options';
import { sandboxStats, signInMany } from './browse';
import { bareProbe, consumer, exporter, person, Recorder, upstreamProbe, warmUp } from './soak-actors';
import { report, series } from './soak-report';
import { prepareBarePage, startBarePage } from './bare';
import { cpuMs, rssMb, signIn, startStack, type Running } from './support';

/** CPU time of the upstream side: the sandbox and, when slowed, the replay in front of it. */
const upstreamCpu = (stack: Running) => cpuMs(stack.sandbox.pid!) + (stack.replay?.pid ? cpuMs(stack.replay.pid) : 0);

/**
 * `npm run bench:soak`: a partner's working day, for --minutes (10) on a production portal in front of the
 * sandbox with its throttling on: 50 signed-in people browsing pages and filters (5–15 s on each page: --think), 5 API v1 consumers walking
 * with tokens (two narrowed), two exports at a time, a folder delivery every minute, the change feed polling
 * every 30 s. First --alone seconds of the people alone (the page p95 without consumers), then everything.
 * Then the same with the upstream slowed (--slow-ms a page). Per class (pages, exports, API v1, deliveries):
 * count, p50/p95/p99, errors by status and code, the longest request; the waits that ran into their bound
 * and the longest gate wait by lane (from /metrics); the portal's memory over time and its event-loop delay.
 * Targets (issue 49): no 500/504 and no request over 10 s the upstream did not cause; page p95 with
 * consumers ≤ 1.5× without; memory growth after the first minute ≤ 64 MB; event-loop delay p99 ≤ 100 ms.
 */

const options = benchOptions('bench:soak', 'A working day of people, exports, API v1 consumers, deliveries and the feed, at once.', {
  minutes: { default: 10, help: 'how long everything runs, per upstream' },
  alone: { default: 60, help: 'seconds of the people alone first (page p95 without consumers)' },
  'slow-ms': { default: 40, help: "the slowed upstream's delay per answer, in ms (0: skip that run)" },
  rate: { default: 3000, help: "the sandbox's throttle: requests a minute for the portal's key" },
  people: { default: 50, help: 'signed-in people browsing' },
  think: { default: '5-15', help: 'seconds a person spends on a page before the next, least-most' },
  consumers: { default: 5, help: 'API v1 consumers walking with tokens (from the third on, two narrowed)' },
});
const METRICS_TOKEN = 'soak-metrics-token-0123456789';
const thinkMs = options.think.split('-').map((n) => Number(n) * 1000) as [number, number];
if (thinkMs.length !== 2 || !thinkMs.every(Number.isFinite) || thinkMs[0] > thinkMs[1])
  throw new Error('--think must be least-most seconds, e.g. 5-15');

async function post(portalUrl: string, cookie: string, url: string, body: unknown) {
  const res = await fetch(`${portalUrl}${url}`, {
    method: 'POST',
    headers: { cookie, origin: portalUrl, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST ${url}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

const SCOPES = [
  { content: ['picks', 'results'], sports: [], leagues: [] },
  { content: ['picks', 'results'], sports: [], leagues: [] },
  { content: ['picks', 'results'], sports: [], leagues: [] },
  { content: ['picks'], sports: ['Football'], leagues: [] },
  { content: ['picks'], sports: [], leagues: ['NBA', 'Premier League'] },
];

async function metricsText(portalUrl: string): Promise<string> {
  return (await fetch(`${portalUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
}
async function day(label: string, slowMs: number, portOffset: number) {
  const stack: Running = await startStack({
    sandboxPort: 4560 + portOffset,
    portalPort: 3560 + portOffset,
    sandboxEnv: { SANDBOX_RATE_LIMIT: String(options.rate), SANDBOX_RATE_WINDOW_MS: '60000' },
    ...(slowMs > 0 ? { replay: { port: 4565 + portOffset, delayMs: slowMs, keep: false } } : {}),
    portalOf: () => ({
      env: {
        METRICS_TOKEN,
        CHANGES_POLL_SECONDS: '30',
        DELIVERY_ROOT: mkdtempSync(path.join(tmpdir(), 'soak-deliveries-')),
        MAX_EXPORTS_PER_USER: '2',
        DELIVERY_MIN_INTERVAL_MINUTES: '1',
      },
    }),
  });
  const pid = stack.portal.pid!;
  let bare: Awaited<ReturnType<typeof startBarePage>> | null = null;
  try {
    bare = await startBarePage(3570 + portOffset, stack.upstreamUrl, stack.key);
    // Two people export, one owns the delivery: each their own walk slots, as on a working day.
    const staff = ['exports-one', 'exports-two', 'deliveries'].map((name) => ({
      email: `${name}@example.com`,
      password: `${name}-password`,
    }));
    for (const user of staff) await addUser(user.email, 'editor', user.password);
    await closeStore();
    const [exportOne, exportTwo, owner] = await Promise.all(staff.map((user) => signIn(stack.portalUrl, user)));
    const admin = await signIn(stack.portalUrl);
    const tokens: string[] = [];
    for (let i = 0; i < options.consumers; i += 1) {
      const made = await post(stack.portalUrl, admin, '/api/tokens', {
        name: `loader ${i + 1}`,
        scope: SCOPES[i % SCOPES.length],
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        ratePerMinute: 600,
        dailyRecords: 50_000_000,
      });
      tokens.push(String(made.token));
    }
    const delivery = await post(stack.portalUrl, owner!, '/api/deliveries', {
      name: 'every minute',
      kind: 'picks',
      format: 'csv',
      filters: { sport: 'Football' },
      schedule: '* * * * *',
      destination: { type: 'directory', folder: 'soak' },
    });
    const cookies = await signInMany(stack.portalUrl, options.people);
    await warmUp(stack.portalUrl, cookies[0]!);
    const rec = new Recorder();
    const memory: Array<{ s: number; mb: number }> = [];
    const lag: number[] = [];
    let stopped = false;
    const sampler = setInterval(() => {
      memory.push({ s: Math.round((performance.now() - rec.started) / 1000), mb: Math.round(rssMb(pid)) });
      void metricsText(stack.portalUrl).then((text) => {
        const p99 = series(text, 'portal_process_nodejs_eventloop_lag_p99_seconds')[0]?.value;
        if (p99 !== undefined && Number.isFinite(p99)) lag.push(p99 * 1000);
      });
    }, 10_000);
    const before = await sandboxStats(stack);
    const until = () => stopped;
    const people = [
      ...cookies.map((cookie, i) => person(rec, stack.portalUrl, cookie, until, i, thinkMs)),
      upstreamProbe(rec, stack.upstreamUrl, stack.key, until),
      bareProbe(rec, bare.url, admin, until),
    ];
    await new Promise((resolve) => setTimeout(resolve, options.alone * 1000));
    const aloneUntil = performance.now() - rec.started;
    // Where the two cores went while everything ran: the portal, the sandbox (and the replay), this load.
    const cpu0 = { portal: cpuMs(pid), sandbox: upstreamCpu(stack), load: process.cpuUsage() };
    console.log(`[bench] ${label}: the people alone for ${options.alone} s; now everything for ${options.minutes} min`);
    const workers = [
      exporter(rec, stack.portalUrl, exportOne!, until),
      exporter(rec, stack.portalUrl, exportTwo!, until),
      ...tokens.map((token) => consumer(rec, stack.portalUrl, token, until)),
    ];
    await new Promise((resolve) => setTimeout(resolve, options.minutes * 60_000));
    const load = process.cpuUsage(cpu0.load);
    const cpu = {
      portal: (cpuMs(pid) - cpu0.portal) / (options.minutes * 60_000),
      sandbox: (upstreamCpu(stack) - cpu0.sandbox) / (options.minutes * 60_000),
      load: (load.user + load.system) / 1000 / (options.minutes * 60_000),
    };
    stopped = true;
    await Promise.all([...people, ...workers]);
    clearInterval(sampler);
    const after = await sandboxStats(stack);
    const text = await metricsText(stack.portalUrl);
    const runs = (await (
      await fetch(`${stack.portalUrl}/api/deliveries/${String(delivery.id)}/runs`, { headers: { cookie: owner! } })
    ).json()) as {
      data?: Array<{ outcome: string; durationMs: number | null; error: string | null }>;
    };
    return report(label, rec.samples, aloneUntil, {
      memory,
      lag,
      text,
      runs: runs.data ?? [],
      upstream: after.requests - before.requests,
      throttled: after.throttled - before.throttled,
      cpu,
    });
  } finally {
    bare?.stop();
    stack.stop();
  }
}

prepareBarePage({ onlyIfStale: true }); // the floor the pages are set against (bench/bare.ts)
const days = [await day(`sandbox (throttle ${options.rate} a minute)`, 0, 0)];
if (options['slow-ms'] > 0) days.push(await day(`sandbox slowed (${options['slow-ms']} ms an answer)`, options['slow-ms'], 1));
await writeResult('soak', { days });
