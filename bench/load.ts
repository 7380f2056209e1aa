import { startPostgres } from '../tests/support/postgres';
import { prepareBaseline, startBaselinePortal } from './baseline';
import { barePathFor, prepareBarePage, startBarePage } from './bare';
import { browse, exportLoop, sandboxStats, SESSIONS, signInMany } from './browse';
import { benchOptions, writeResult } from './options';
import { cpuMs, median, rssMb, startStack, type Running } from './support';
import { PORTAL_NODE_ARGS } from '../scripts/portal-node-options';
import { nginxAvailable, startNginx } from './nginx';

/**
 * `npm run bench:load`: the portal under load, on the sandbox (production build, same Node options as npm start).
 *  1. 50 concurrent signed-in sessions browse /picks with varied filters for --seconds (30), while two
 *     exports run back to back; throttling off. Latency p50/p95/p99 and errors (target: 0). Side by side with
 *     an earlier commit (--baseline <commit>; the target uses 284786b), --rounds alternating rounds each,
 *     then the same without the exports (the pages alone), beside a bare Next.js page serving the same rows per
 *     request (bench/bare.ts; built unless bench:pages built these sources): what the framework alone allows here.
 *  2. The same browsing with the sandbox throttling on (a small per-key budget): portal requests against
 *     upstream requests and upstream 429s, to show one throttle does not become a storm.
 *  3. A soak of --soak (10,000) requests: the portal's memory at start and end.
 *  4. Instances: phase 1's browsing on one instance (embedded store), one on PostgreSQL, and two on one
 *     PostgreSQL behind nginx's round robin (Debian's postgresql and nginx, started here on loopback).
 */

const options = benchOptions('bench:load', 'The portal under load, beside a bare Next.js page and an earlier commit.', {
  seconds: { default: 30, help: 'how long each browsing measurement lasts' },
  rounds: { default: 3, help: 'phase 1 rounds per portal and shape when a baseline runs beside today' },
  phases: { default: '1,2,3,4', help: 'which phases run (1 alone: the side-by-side)' },
  soak: { default: 10_000, help: 'requests of the soak (phase 3)' },
  baseline: { default: 'none', help: 'an earlier commit measured beside today (the target uses 284786b)' },
});
const SECONDS = options.seconds;
const SOAK = options.soak;
const PHASES = options.phases.split(',');
const BASELINE_REV = options.baseline;
/** Phase 1 rounds per portal and shape when a baseline runs beside today's (medians are reported). */
const LOAD_ROUNDS = options.rounds;

/** The browsing target: a portal process (today's, or the baseline's) in front of a stack's sandbox. */
interface Target {
  name: string;
  portalUrl: string;
  pid: number;
  cookies: string[];
  /** The bare Next.js page: the same rows per request, nothing of a portal's (pages alone only). */
  pathFor?: (path: string) => string;
}

/**
 * Phase 1 on one portal: --seconds of browsing by 50 sessions, throttling off, two exports alongside
 * (the shape of the figures). Without them (`exports` false) it is the pages alone: a portal whose
 * exports are faster also runs more of them in the same seconds, taking CPU from its pages.
 */
async function phaseOne(stack: Running, target: Target, exporting: boolean) {
  const on = { ...stack, portalUrl: target.portalUrl };
  let running = exporting;
  const exports = Promise.all([exportLoop(on, target.cookies[0]!, () => !running), exportLoop(on, target.cookies[1]!, () => !running)]);
  const before = await sandboxStats(stack);
  const cpuBefore = { portal: cpuMs(target.pid), sandbox: cpuMs(stack.sandbox.pid!) };
  const { result: load, latency } = await browse(on, target.cookies, { duration: SECONDS, pathFor: target.pathFor });
  const cpu = { portalMs: cpuMs(target.pid) - cpuBefore.portal, sandboxMs: cpuMs(stack.sandbox.pid!) - cpuBefore.sandbox };
  running = false;
  const exportRuns = await exports;
  const after = await sandboxStats(stack);
  const errors = load.errors + load.timeouts + load.non2xx;
  console.log(
    `[bench] load, ${target.name}${exporting ? '' : ', pages alone'}: ${SESSIONS} sessions, ${SECONDS} s: ${load.requests.total} requests (${load.requests.average} req/s), latency p50 ${latency.p50} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms; errors ${errors}; exports alongside ${JSON.stringify(exportRuns)}; CPU portal ${cpu.portalMs} ms, sandbox ${cpu.sandboxMs} ms; ${after.requests - before.requests} upstream requests`,
  );
  return {
    portal: target.name,
    exporting,
    sessions: SESSIONS,
    seconds: SECONDS,
    requests: load.requests.total,
    rps: load.requests.average,
    latencyMs: latency,
    errors,
    non2xx: load.non2xx,
    exportsCompleted: exportRuns.reduce((s, r) => s + r.done, 0),
    exportsFailed: exportRuns.reduce((s, r) => s + r.failed, 0),
    upstreamRequests: after.requests - before.requests,
    cpu,
  };
}

const report: Record<string, unknown> = {};
// The baseline (--baseline, a commit; "none" to skip) is unpacked and built before anything is measured.
const baselineDir = BASELINE_REV === 'none' ? null : prepareBaseline(BASELINE_REV);
if (baselineDir) prepareBarePage({ onlyIfStale: true });
let stack = await startStack({ sandboxPort: 4520, portalPort: 3520, sandboxEnv: { SANDBOX_RATE_LIMIT: '0' } });
try {
  const today: Target = { name: 'today', portalUrl: stack.portalUrl, pid: stack.portal.pid!, cookies: [] };
  const portals = [today];
  const baseline = baselineDir ? await startBaselinePortal(baselineDir, stack, 3522, PORTAL_NODE_ARGS) : null;
  if (baseline) portals.push({ name: `baseline ${BASELINE_REV}`, portalUrl: baseline.portalUrl, pid: baseline.portal.pid!, cookies: [] });
  // The framework's own ceiling on this machine: a bare Next.js page with the same rows per request.
  const bare = baseline ? await startBarePage(3524, stack.upstreamUrl, stack.key) : null;
  const bareTarget: Target | null = bare
    ? { name: 'bare Next.js page', portalUrl: bare.url, pid: bare.process.pid!, cookies: ['bench=1'], pathFor: barePathFor }
    : null;
  try {
    for (const target of [...portals, ...(bareTarget ? [bareTarget] : [])]) {
      if (!target.pathFor) target.cookies = await signInMany(target.portalUrl, SESSIONS);
      const warmUp = { amount: 200, connections: 10, pathFor: target.pathFor };
      await browse({ ...stack, portalUrl: target.portalUrl }, target.cookies, warmUp);
    }
    // 1. Load, throttling off, with exports alongside, then the pages alone: each portal in turn, the order
    //    reversed every round, all in front of the same sandbox (the others idle meanwhile). The bare page
    //    runs in the second shape only (it has no exports).
    report.load = [];
    for (const exporting of [true, false]) {
      if (!exporting && !baseline) break;
      const targets = exporting || !bareTarget ? portals : [...portals, bareTarget];
      const rounds: Awaited<ReturnType<typeof phaseOne>>[][] = targets.map(() => []);
      for (let round = 0; round < (baseline ? LOAD_ROUNDS : 1); round += 1) {
        const order = round % 2 ? [...targets.keys()].reverse() : [...targets.keys()];
        for (const i of order) rounds[i]!.push(await phaseOne(stack, targets[i]!, exporting));
      }
      const summary = targets.map((target, i) => ({
        portal: target.name,
        exporting,
        rps: median(rounds[i]!.map((r) => r.rps)),
        p50: median(rounds[i]!.map((r) => r.latencyMs.p50)),
        p95: median(rounds[i]!.map((r) => r.latencyMs.p95)),
        errors: rounds[i]!.reduce((sum, r) => sum + r.errors, 0),
        portalCpuMsPerRequest: median(rounds[i]!.map((r) => r.cpu.portalMs / r.requests)),
      }));
      (report.load as unknown[]).push({ rounds: rounds.flat(), summary });
      const shape = exporting ? 'with two exports alongside' : 'pages alone';
      for (const row of summary)
        console.log(
          `[bench] load, ${row.portal}, ${shape} (median of ${rounds[0]!.length}): ${row.rps} req/s, p50 ${row.p50} ms, p95 ${row.p95} ms, errors ${row.errors}, server CPU ${row.portalCpuMsPerRequest.toFixed(1)} ms a request`,
        );
      const [now, then, framework] = summary;
      if (now && then)
        console.log(
          `[bench] load, side by side, ${shape}: today ${(now.rps / then.rps).toFixed(2)}x the throughput of ${then.portal} (target 2x), p95 ${now.p95} against ${then.p95} ms`,
        );
      if (framework && then)
        console.log(
          `[bench] load, the bare Next.js page (same rows, no portal) serves ${(framework.rps / then.rps).toFixed(2)}x the throughput of ${then.portal}: the ceiling of any Next.js portal on this machine in this shape`,
        );
    }
  } finally {
    baseline?.stop();
    bare?.stop();
  }
  const cookies = today.cookies;

  if (PHASES.includes('3')) {
    // 3. Soak, throttling off, in tenths so the memory curve shows (after the load above warmed the heap).
    const rssStart = rssMb(stack.portal.pid!);
    const curve: number[] = [];
    let soakRequests = 0;
    let soakErrors = 0;
    for (let part = 0; part < 10; part += 1) {
      const r = (await browse(stack, cookies, { amount: Math.ceil(SOAK / 10), connections: 20 })).result;
      soakRequests += r.requests.total;
      soakErrors += r.errors + r.timeouts + r.non2xx;
      curve.push(Math.round(rssMb(stack.portal.pid!)));
    }
    const rssEnd = curve.at(-1)!;
    report.soak = {
      requests: soakRequests,
      errors: soakErrors,
      rssStartMb: Math.round(rssStart),
      rssEndMb: rssEnd,
      rssEveryTenthMb: curve,
    };
    console.log(
      `[bench] soak: ${soakRequests} requests, errors ${soakErrors}; portal RSS ${rssStart.toFixed(0)} MB at start, ${rssEnd} MB at end; every tenth: ${curve.join(' ')} MB`,
    );
  }
  stack.stop();

  if (PHASES.includes('2')) {
    // 2. Throttling on: a budget of 100 upstream requests per 10 s for the portal's key.
    stack = await startStack({
      sandboxPort: 4521,
      portalPort: 3521,
      sandboxEnv: { SANDBOX_RATE_LIMIT: '100', SANDBOX_RATE_WINDOW_MS: '10000' },
    });
    const throttledCookies = await signInMany(stack.portalUrl, SESSIONS);
    const t0 = await sandboxStats(stack);
    const { result: throttled, latency: throttledLatency } = await browse(stack, throttledCookies, { duration: SECONDS });
    const t1 = await sandboxStats(stack);
    report.throttled = {
      portalRequests: throttled.requests.total,
      upstreamRequests: t1.requests - t0.requests,
      upstream429s: t1.throttled - t0.throttled,
      budget: '100 requests / 10 s',
      latencyMs: throttledLatency,
      portal5xx: throttled.non2xx,
    };
    console.log(
      `[bench] throttling on (100 req / 10 s): ${throttled.requests.total} portal requests -> ${t1.requests - t0.requests} upstream requests, ${t1.throttled - t0.throttled} of them answered 429`,
    );
  }
  stack.stop();

  // 4. Instances: the same browsing (no exports) on one instance with the embedded store, one on PostgreSQL,
  //    and two on one PostgreSQL behind nginx (round robin), throttling off. Skipped, saying so, without both.
  if (PHASES.includes('4')) report.instances = await instancesPhase();
  await writeResult('load', report);
} finally {
  stack.stop();
}

async function instancesPhase() {
  const pg = await startPostgres();
  if (!pg || !nginxAvailable()) {
    console.log("[bench] instances: SKIPPED (needs Debian's postgresql and nginx: apt-get install -y postgresql nginx)");
    return null;
  }
  const rows: Record<string, unknown>[] = [];
  try {
    const setups = [
      { name: '1 instance, embedded store', databaseUrl: undefined, more: [] as number[] },
      { name: '1 instance, PostgreSQL', databaseUrl: await pg.createDatabase('bench_one'), more: [] },
      { name: '2 instances, one PostgreSQL, nginx round robin', databaseUrl: await pg.createDatabase('bench_two'), more: [3531] },
    ];
    for (const setup of setups) {
      stack = await startStack({
        sandboxPort: 4530,
        portalPort: 3530,
        sandboxEnv: { SANDBOX_RATE_LIMIT: '0' },
        ...setup,
        morePortalPorts: setup.more,
      });
      const front = setup.more.length ? await startNginx(3539, [3530, ...setup.more]) : null;
      const target = { ...stack, portalUrl: front?.url ?? stack.portalUrl };
      try {
        const cookies = await signInMany(target.portalUrl, SESSIONS);
        await browse(target, cookies, { amount: 200, connections: 10 }); // warm-up (each instance)
        const cpuBefore = stack.portals.map((child) => cpuMs(child.pid!));
        const { result, latency } = await browse(target, cookies, { duration: SECONDS });
        const portalCpuMs = stack.portals.reduce((sum, child, i) => sum + cpuMs(child.pid!) - cpuBefore[i]!, 0);
        const errors = result.errors + result.timeouts + result.non2xx;
        rows.push({
          setup: setup.name,
          requests: result.requests.total,
          rps: result.requests.average,
          latencyMs: latency,
          errors,
          portalCpuMs,
        });
        console.log(
          `[bench] instances: ${setup.name}: ${result.requests.average} req/s, p50 ${latency.p50} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms, errors ${errors}, portal CPU ${portalCpuMs} ms`,
        );
      } finally {
        front?.stop();
        stack.stop();
      }
    }
  } finally {
    pg.destroy();
  }
  return rows;
}
