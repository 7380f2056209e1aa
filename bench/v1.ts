import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { prepareBarePage, startBarePage, type BarePage } from './bare';
import { prepareBaseline, startBaselinePortal } from './baseline';
import { PORTAL_NODE_ARGS } from '../scripts/portal-node-options';
import { benchOptions, writeResult } from './options';
import { median, signIn, startStack, waitFor } from './support';

/**
 * `npm run bench:v1`: a partner's system walking everything through the portal's /api/v1 with an API token,
 * against the same walk straight from the upstream with the partner key — at 200 records a page, against an
 * instant upstream and one answering in --remote-ms (bench/replay.ts replays the sandbox's pages from memory,
 * so the upstream's own work is out of the measurement). Beside them, the same walk through a bare pass-through
 * proxy (bench/pass-through.ts: nothing read or checked), the floor any proxy in Node sets on this machine.
 * Alternating rounds; medians, the ratio of the medians and round by round. Targets: 1.15 instant, 1.03 remote;
 * against the bare proxy in the same rounds, 1.2 instant. A checking proxy (reads and checks every record, nothing else
 * of the portal's) shows the floor a proxy that passes no unchecked record on sets; a bare Next.js route handler
 * passing the same requests on (bench/bare-page's /api/v1/picks) shows the floor the framework sets.
 */

const options = benchOptions('bench:v1', 'A full walk through the portal’s /api/v1 with a token, against the upstream directly.', {
  rounds: { default: 9, help: 'alternating rounds against the instant upstream' },
  'remote-rounds': { default: 3, help: 'rounds against the remote upstream' },
  'remote-ms': { default: 40, help: "the remote upstream's delay per page, in ms" },
  picks: { default: 55_000, help: "the sandbox's size (about 40,000 licensed records at 55,000)" },
  baseline: { default: 'none', help: 'an earlier commit measured in the same rounds (bench/baseline.ts)' },
});
const baselineDir = options.baseline === 'none' ? null : prepareBaseline(options.baseline);

/** A client's walk of every record (fetch, JSON.parse, the next cursor): what a partner's loader does. */
async function walk(baseUrl: string, key: string): Promise<{ ms: number; records: number; pages: number }> {
  const start = performance.now();
  let cursor: string | null = null;
  let records = 0;
  let pages = 0;
  do {
    const res = await fetch(`${baseUrl}/api/v1/picks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    if (!res.ok) throw new Error(`walk of ${baseUrl}: HTTP ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { data: unknown[]; page: { nextCursor: string | null; hasMore: boolean } };
    records += body.data.length;
    pages += 1;
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return { ms: performance.now() - start, records, pages };
}

async function makeToken(portalUrl: string): Promise<string> {
  const cookie = await signIn(portalUrl);
  const res = await fetch(`${portalUrl}/api/tokens`, {
    method: 'POST',
    headers: { cookie, origin: portalUrl, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      name: 'bench loader',
      scope: { content: ['picks', 'results'], sports: [], leagues: [] },
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      ratePerMinute: 6_000,
      dailyRecords: 50_000_000,
    }),
  });
  if (res.status !== 201) throw new Error(`token: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

prepareBarePage({ onlyIfStale: true });
const all = [];
for (const [label, delayMs, rounds, port] of [
  ['instant', 0, options.rounds, 0],
  [`remote (${options['remote-ms']} ms a page)`, options['remote-ms'], options['remote-rounds'], 1],
] as const) {
  if (rounds === 0) continue;
  const stack = await startStack({
    sandboxPort: 4530 + port,
    portalPort: 3530 + port,
    sandboxEnv: { SANDBOX_PICKS: String(options.picks), SANDBOX_RATE_LIMIT: '0' },
    replay: { port: 4535 + port, delayMs },
  });
  const proxy = (proxyPort: number, check: boolean) => ({
    url: `http://127.0.0.1:${proxyPort}`,
    process: spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'bench/pass-through.ts'], {
      env: { ...process.env, PASS_PORT: String(proxyPort), PASS_TARGET: stack.upstreamUrl, PASS_CHECK: check ? '1' : '0' },
      stdio: 'ignore',
    }),
  });
  const pass = proxy(4538 + port, false);
  const checker = proxy(4542 + port, true);
  const passUrl = pass.url;
  let nextRoute: BarePage | undefined;
  let baseline: Awaited<ReturnType<typeof startBaselinePortal>> | null = null;
  try {
    for (const url of [passUrl, checker.url]) await waitFor(`${url}/api/v1/health`, { headers: { Authorization: `Bearer ${stack.key}` } });
    nextRoute = await startBarePage(4546 + port, stack.upstreamUrl, stack.key);
    const token = await makeToken(stack.portalUrl);
    baseline = baselineDir ? await startBaselinePortal(baselineDir, stack, 3550 + port, PORTAL_NODE_ARGS) : null;
    const baselineToken = baseline ? await makeToken(baseline.portalUrl) : '';
    if (baseline) await walk(baseline.portalUrl, baselineToken);
    // Warm-up: the route compiled into memory, connections open, the replay's pages cached.
    await walk(stack.upstreamUrl, stack.key);
    await walk(stack.portalUrl, token);
    await walk(passUrl, stack.key);
    await walk(checker.url, stack.key);
    await walk(nextRoute.url, stack.key);
    const direct: Awaited<ReturnType<typeof walk>>[] = [];
    const portal: Awaited<ReturnType<typeof walk>>[] = [];
    const bare: Awaited<ReturnType<typeof walk>>[] = [];
    const checked: Awaited<ReturnType<typeof walk>>[] = [];
    const framework: Awaited<ReturnType<typeof walk>>[] = [];
    const before: Awaited<ReturnType<typeof walk>>[] = [];
    const nextUrl = nextRoute.url;
    const ways = [
      () => walk(stack.upstreamUrl, stack.key).then((w) => direct.push(w)),
      () => walk(stack.portalUrl, token).then((w) => portal.push(w)),
      () => walk(passUrl, stack.key).then((w) => bare.push(w)),
      () => walk(checker.url, stack.key).then((w) => checked.push(w)),
      () => walk(nextUrl, stack.key).then((w) => framework.push(w)),
      ...(baseline ? [() => walk(baseline!.portalUrl, baselineToken).then((w) => before.push(w))] : []),
    ];
    for (let round = 1; round <= rounds; round += 1) {
      // Which goes first turns by round: none always follows another's garbage.
      for (let k = 0; k < ways.length; k += 1) await ways[(k + round) % ways.length]!();
      console.log(
        `[bench] ${label} round ${round}: direct ${direct.at(-1)!.ms.toFixed(0)} ms, portal ${portal.at(-1)!.ms.toFixed(0)} ms, bare proxy ${bare.at(-1)!.ms.toFixed(0)} ms, checking proxy ${checked.at(-1)!.ms.toFixed(0)} ms, bare Next.js route ${framework.at(-1)!.ms.toFixed(0)} ms${before.length ? `, baseline ${before.at(-1)!.ms.toFixed(0)} ms` : ''}`,
      );
    }
    if (portal[0]!.records !== direct[0]!.records)
      throw new Error(`the portal walked ${portal[0]!.records} records, the upstream ${direct[0]!.records}`);
    const result = {
      upstream: label,
      rounds,
      records: direct[0]!.records,
      pages: direct[0]!.pages,
      medianMs: {
        direct: median(direct.map((w) => w.ms)),
        portal: median(portal.map((w) => w.ms)),
        bareProxy: median(bare.map((w) => w.ms)),
        checkingProxy: median(checked.map((w) => w.ms)),
        nextRoute: median(framework.map((w) => w.ms)),
      },
      ratio: median(portal.map((w) => w.ms)) / median(direct.map((w) => w.ms)),
      bareProxyRatio: median(bare.map((w) => w.ms)) / median(direct.map((w) => w.ms)),
      pairedRatio: median(portal.map((w, i) => w.ms / direct[i]!.ms)),
      // The issue's measure: the portal against the floor any proxy in Node sets (target 1.2, instant).
      overBareProxy: median(portal.map((w) => w.ms)) / median(bare.map((w) => w.ms)),
      // The floor of the design: a proxy that reads and checks every record before passing it on, nothing else.
      checkingProxyRatio: median(checked.map((w) => w.ms)) / median(bare.map((w) => w.ms)),
      overCheckingProxy: median(portal.map((w) => w.ms)) / median(checked.map((w) => w.ms)),
      // The floor the framework sets: a bare Next.js route handler passing the requests on, against the bare proxy.
      nextRouteRatio: median(framework.map((w) => w.ms)) / median(bare.map((w) => w.ms)),
      overNextRoute: median(portal.map((w) => w.ms)) / median(framework.map((w) => w.ms)),
      pairedOverNextRoute: median(portal.map((w, i) => w.ms / framework[i]!.ms)),
      // --baseline: the earlier commit's portal in the same rounds, and this one over it (round by round too).
      ...(before.length
        ? {
            baseline: options.baseline,
            baselineMs: median(before.map((w) => w.ms)),
            overBaseline: median(portal.map((w) => w.ms)) / median(before.map((w) => w.ms)),
            pairedOverBaseline: median(portal.map((w, i) => w.ms / before[i]!.ms)),
            roundsMs: { portal: portal.map((w) => Math.round(w.ms)), baseline: before.map((w) => Math.round(w.ms)) },
          }
        : {}),
    };
    all.push(result);
    console.log(
      `\n[bench] a full walk at 200 a page, ${label} upstream, medians of ${rounds} rounds (${result.records} records, ${result.pages} pages)`,
    );
    console.log(`  upstream directly   ${result.medianMs.direct.toFixed(0)} ms`);
    console.log(
      `  through /api/v1     ${result.medianMs.portal.toFixed(0)} ms   ratio ${result.ratio.toFixed(3)} (round by round ${result.pairedRatio.toFixed(3)})`,
    );
    console.log(
      `  bare proxy          ${result.medianMs.bareProxy.toFixed(0)} ms   ratio ${result.bareProxyRatio.toFixed(3)}; the portal over it ${result.overBareProxy.toFixed(3)}`,
    );
    console.log(
      `  checking proxy      ${result.medianMs.checkingProxy.toFixed(0)} ms   ${result.checkingProxyRatio.toFixed(3)} the bare proxy; the portal over it ${result.overCheckingProxy.toFixed(3)}`,
    );
    console.log(
      `  bare Next.js route  ${result.medianMs.nextRoute.toFixed(0)} ms   ${result.nextRouteRatio.toFixed(3)} the bare proxy; the portal over it ${result.overNextRoute.toFixed(3)} (round by round ${result.pairedOverNextRoute.toFixed(3)})`,
    );
    if (result.overBaseline !== undefined)
      console.log(
        `  baseline ${options.baseline}  ${result.baselineMs!.toFixed(0)} ms   this portal over it ${result.overBaseline.toFixed(3)} (round by round ${result.pairedOverBaseline!.toFixed(3)})`,
      );
  } finally {
    baseline?.stop();
    nextRoute?.stop();
    pass.process.kill('SIGTERM');
    checker.process.kill('SIGTERM');
    stack.stop();
  }
}
console.log(
  `\n[bench] /api/v1 against the upstream: instant ${all[0]?.ratio.toFixed(3) ?? '–'} (target 1.15)${all[1] ? `, remote ${all[1].ratio.toFixed(3)} (target 1.03)` : ''}; against the bare proxy, instant ${all[0]?.overBareProxy.toFixed(3) ?? '–'} (target 1.2), against the checking proxy ${all[0]?.overCheckingProxy.toFixed(3) ?? '–'}`,
);
await writeResult('v1', { walks: all });
