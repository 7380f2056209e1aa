import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addUser } from '../lib/auth/users';
import { closeStore } from '../lib/store';
import { benchOptions, writeResult } from './options';
import { sandboxStats, signInMany } from './browse';
import { classFigures, consumer, exporter, person, portalFaults, Recorder, tally, upstreamProbe, warmUp, type Sample } from './soak-actors';
import { cpuMs, median, percentile, rssMb, signIn, startStack, type Running } from './support';

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
const series = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))].map((m) => ({ labels: m[1] ?? '', value: Number(m[2]) }));

/** The longest gate wait by lane: the upper bound of the highest bucket any request fell beyond the one below. */
function longestGateWait(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const lane of ['page', 'bulk', 'consumer']) {
    const buckets = series(text, 'portal_upstream_gate_wait_seconds_bucket').filter((s) => s.labels.includes(`lane="${lane}"`));
    const total = buckets.find((b) => b.labels.includes('le="+Inf"'))?.value ?? 0;
    const under = buckets.find((b) => b.value === total && !b.labels.includes('+Inf'));
    out[lane] = total === 0 ? 'none' : under ? `≤ ${/le="([^"]+)"/.exec(under.labels)![1]} s` : '> 60 s';
  }
  return out;
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
  try {
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
    stack.stop();
  }
}

function report(
  label: string,
  samples: Sample[],
  aloneUntil: number,
  seen: {
    memory: Array<{ s: number; mb: number }>;
    lag: number[];
    text: string;
    runs: Array<{ outcome: string; durationMs: number | null; error: string | null }>;
    upstream: number;
    throttled: number;
    /** Cores used while everything ran, by process. */
    cpu: { portal: number; sandbox: number; load: number };
  },
) {
  const alone = (c: Sample['class']) => samples.filter((s) => s.class === c && s.at < aloneUntil);
  const busy = (c: Sample['class']) => samples.filter((s) => s.class === c && s.at >= aloneUntil + 10_000);
  const pagesAlone = alone('page');
  const pagesBusy = busy('page');
  const p95 = (xs: Sample[]) =>
    percentile(
      xs.map((s) => s.ms),
      95,
    );
  const classes = Object.fromEntries(
    (['page', 'export', 'api_v1'] as const).map((c) => [
      c,
      classFigures(samples.filter((s) => s.class === c && (c !== 'page' || s.at >= aloneUntil))),
    ]),
  );
  const runMs = seen.runs.flatMap((r) => (r.durationMs === null ? [] : [r.durationMs]));
  const outcomes = tally(seen.runs.map((r) => (r.error ? `${r.outcome}: ${r.error.slice(0, 60)}` : r.outcome)));
  const deliveries = { count: seen.runs.length, p50: median(runMs), p95: percentile(runMs, 95), p99: percentile(runMs, 99), outcomes };
  // Growth as the collector leaves it: the median of the last minute against that of the first minute of everything
  // (a single sample is a garbage collection's timing, not growth); the peak is printed beside it.
  const mb = (from: number, to: number) => seen.memory.filter((m) => m.s * 1000 >= from && m.s * 1000 < to).map((m) => m.mb);
  const lastAt = (seen.memory.at(-1)?.s ?? 0) * 1000;
  const growth = median(mb(lastAt - 55_000, lastAt + 1)) - median(mb(aloneUntil, aloneUntil + 60_000));
  const peak = Math.max(...seen.memory.map((m) => m.mb));
  const waits = Object.fromEntries(
    series(seen.text, 'portal_waits_bounded_total').map((s) => [/wait="([^"]+)"/.exec(s.labels)![1], s.value]),
  );
  const faults = portalFaults(samples);
  const alone95 = percentile(
    pagesAlone.map((s) => s.ms),
    95,
  );
  const busy95 = percentile(
    pagesBusy.map((s) => s.ms),
    95,
  );
  const result = {
    upstream: label,
    classes,
    deliveries,
    pageP95: { alone: Math.round(alone95), withConsumers: Math.round(busy95), ratio: busy95 / alone95 },
    pagesByPath: [...new Set(pagesAlone.map((s) => s.path))]
      .map((path) => {
        const [a, b] = [pagesAlone, pagesBusy].map((xs) => Math.round(p95(xs.filter((s) => s.path === path))));
        return { path, alone: a!, withConsumers: b! };
      })
      .sort((x, y) => y.withConsumers - y.alone - (x.withConsumers - x.alone)),
    upstreamP95: {
      alone: Math.round(p95(alone('upstream'))),
      withConsumers: Math.round(p95(busy('upstream'))),
      ratio: p95(busy('upstream')) / p95(alone('upstream')),
    },
    memoryMb: seen.memory,
    memoryGrowthAfterFirstMinuteMb: growth,
    memoryPeakMb: peak,
    eventLoopP99Ms: { max: Math.round(Math.max(...seen.lag)), median: Math.round(median(seen.lag)) },
    waitsBounded: waits,
    longestGateWait: longestGateWait(seen.text),
    upstreamRequests: seen.upstream,
    upstreamThrottled: seen.throttled,
    coresUsed: seen.cpu,
    faults,
  };
  const line = (name: string, f: ReturnType<typeof classFigures> | typeof deliveries) =>
    `  ${name.padEnd(10)} ${String(f.count).padStart(6)}   p50 ${String(Math.round(f.p50)).padStart(6)}  p95 ${String(Math.round(f.p95)).padStart(6)}  p99 ${String(Math.round(f.p99)).padStart(6)} ms   ${JSON.stringify('errors' in f ? f.errors : f.outcomes)}${'longest' in f && f.longest ? `   longest ${f.longest.ms} ms ${f.longest.path} ${f.longest.status} ${f.longest.code ?? ''}` : ''}`;
  console.log(`\n[bench] soak, ${label}: ${samples.length} requests, ${seen.upstream} upstream requests (${seen.throttled} throttled)`);
  for (const [name, f] of Object.entries(classes)) console.log(line(name, f));
  console.log(line('deliveries', deliveries));
  console.log(
    `  pages whose p95 grew most, alone → with everything: ${result.pagesByPath
      .slice(0, 5)
      .map((p) => `${p.path} ${p.alone} → ${p.withConsumers} ms`)
      .join(', ')}`,
  );
  console.log(
    `  cores used while everything ran (of 2): portal ${seen.cpu.portal.toFixed(2)}, sandbox ${seen.cpu.sandbox.toFixed(2)}, this load ${seen.cpu.load.toFixed(2)}`,
  );
  console.log(
    `  page p95 alone ${result.pageP95.alone} ms, with everything ${result.pageP95.withConsumers} ms: ${result.pageP95.ratio.toFixed(2)}× (target ≤ 1.5)`,
  );
  console.log(
    `  the upstream asked directly as a page asks it: p95 alone ${result.upstreamP95.alone} ms, with everything ${result.upstreamP95.withConsumers} ms: ${result.upstreamP95.ratio.toFixed(2)}×`,
  );
  console.log(
    `  memory ${seen.memory.map((m) => m.mb).join(' ')} MB; growth after the first minute ${growth} MB (medians of the first and last minutes; target ≤ 64), peak ${peak} MB`,
  );
  console.log(
    `  event-loop delay p99 per 10 s: max ${result.eventLoopP99Ms.max} ms, median ${result.eventLoopP99Ms.median} ms (target ≤ 100)`,
  );
  console.log(`  waits at their bound ${JSON.stringify(waits)}; longest gate wait by lane ${JSON.stringify(result.longestGateWait)}`);
  console.log(
    `  500/504 not caused by the upstream: ${faults.serverErrors.length}${faults.serverErrors.length ? ` ${faults.serverErrors.slice(0, 5).join('; ')}` : ''} (target 0)`,
  );
  console.log(
    `  over 10 s not caused by the upstream: ${faults.slow.length}${faults.slow.length ? ` ${faults.slow.slice(0, 5).join('; ')}` : ''} (target 0)`,
  );
  return result;
}

const days = [await day(`sandbox (throttle ${options.rate} a minute)`, 0, 0)];
if (options['slow-ms'] > 0) days.push(await day(`sandbox slowed (${options['slow-ms']} ms an answer)`, options['slow-ms'], 1));
await writeResult('soak', { days });
