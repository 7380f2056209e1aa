import { prepareBaseline, startBaselinePortal } from './baseline';
import { prepareBarePage, startBarePage, type BarePage } from './bare';
import { bareCsvExport, csvWritingMs } from './export-floors';
import { measureMoving } from './export-moving';
import { benchOptions, writeResult } from './options';
import { cpuMs, median, rssMb, settled, signIn, startStack, type Running } from './support';
import { PORTAL_NODE_ARGS } from '../scripts/portal-node-options';

/**
 * `npm run bench:export`: the portal's export against the physical floor, in one run, twice: against an
 * instant upstream and against a remote one (--remote-ms, 40 ms a page). Both are bench/replay.ts
 * replaying the sandbox's pages from memory (--picks, 55,000 picks: about 40,000 licensed records), so
 * the upstream's own work is out of the measurement and the portal's cost shows.
 * Alternating rounds of (a) a raw walk of the API (fetch + JSON.parse every page at limit 200),
 * (b) the portal's CSV export read to the end over HTTP, (c) its JSON export. Prints medians, the ratios
 * b/a and c/a (of the medians, and round by round), time to first byte, and the portal's peak memory
 * during exports against idle. Targets: 1.25 instant, 1.05 remote. --baseline <commit> also measures that
 * commit's portal (built once outside the repository) in the same rounds, in front of the same upstream. Beside
 * them, (f) a bare CSV export (bench/bare-page's /export: a Next.js route handler and papaparse, nothing checked).
 */

const options = benchOptions('bench:export', 'Exports against a raw walk of the API, at rest and while records move.', {
  rounds: { default: 9, help: 'alternating rounds against the instant upstream' },
  'remote-rounds': { default: 3, help: 'rounds against the remote upstream' },
  'remote-ms': { default: 40, help: "the remote upstream's delay per page, in ms" },
  picks: { default: 55_000, help: "the sandbox's size (about 40,000 licensed records at 55,000)" },
  'moving-rounds': { default: 3, help: 'exports while records move (0 skips them)' },
  'moving-picks': { default: 20_000, help: "the moving sandbox's size" },
  baseline: { default: 'none', help: 'an earlier commit measured in the same rounds (bench/baseline.ts)' },
  'back-to-back': {
    default: false,
    help: 'exports one after another, the record history of each kept while the next runs (as people export), instead of waited out',
  },
});
const ROUNDS = options.rounds;
const REMOTE_ROUNDS = options['remote-rounds'];
const REMOTE_MS = options['remote-ms'];
const PICKS = String(options.picks);
const BASELINE = options.baseline;
const baselineDir = BASELINE === 'none' ? null : prepareBaseline(BASELINE);

let sandboxUrl = '';
let portalUrl = '';
let KEY = '';

async function rawWalk(): Promise<{ ms: number; records: number; firstPageMs: number }> {
  const start = performance.now();
  let cursor: string | null = null;
  let records = 0;
  let firstPageMs = 0;
  do {
    const url = `${sandboxUrl}/api/v1/picks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = (await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
      data: unknown[];
      page: { nextCursor: string | null; hasMore: boolean };
    };
    if (!firstPageMs) firstPageMs = performance.now() - start;
    records += body.data.length;
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  return { ms: performance.now() - start, records, firstPageMs };
}

async function portalExport(
  format: 'csv' | 'json',
  cookie: string,
  pid: number,
  url = portalUrl,
): Promise<{ ms: number; bytes: number; ttfbMs: number; peakMb: number }> {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 25);
  const start = performance.now();
  const res = await fetch(`${url}/api/export/picks?format=${format}`, { headers: { cookie } });
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

/** An earlier commit's portal measured in the same rounds (--baseline), in front of the same upstream. */
interface Baseline {
  url: string;
  pid: number;
  cookie: string;
}

async function measure(stack: Running, rounds: number, label: string, baseline: Baseline | null, bare: BarePage) {
  const { sandbox, portal } = stack;
  [sandboxUrl, portalUrl, KEY] = [stack.upstreamUrl, stack.portalUrl, stack.key];
  const cookie = await signIn(portalUrl);
  const d: Awaited<ReturnType<typeof portalExport>>[] = [];
  const e: Awaited<ReturnType<typeof portalExport>>[] = [];
  const baselineCpu = { csv: [] as number[], json: [] as number[] };
  if (baseline) await portalExport('csv', baseline.cookie, baseline.pid, baseline.url);

  await portalExport('csv', cookie, portal.pid!); // warm-up: route compiled into memory, connections open
  await rawWalk();
  await new Promise((r) => setTimeout(r, 1000));
  const idleMb = rssMb(portal.pid!);
  const csvAloneMs = await csvWritingMs(sandboxUrl, KEY);
  await bareCsvExport(bare.url);
  const f: Awaited<ReturnType<typeof bareCsvExport>>[] = [];

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
  const measuredOn = async <T>(into: { portal: number[]; pid: number }, work: () => Promise<T>) => {
    const p0 = cpuMs(into.pid);
    const result = await work();
    into.portal.push(cpuMs(into.pid) - p0);
    return result;
  };
  const after = { csv: [] as { cpuMs: number; ms: number }[], json: [] as { cpuMs: number; ms: number }[] };
  for (let round = 1; round <= rounds; round += 1) {
    a.push(await measured(rawWalk, { sandbox: cpu.sandboxRaw }));
    f.push(await bareCsvExport(bare.url));
    // Each export is measured alone: what it leaves to do in the background (its record history) is waited out
    // and counted apart, so it neither slows the next export nor hides in it.
    const today = async () => {
      b.push(await measured(() => portalExport('csv', cookie, portal.pid!), { sandbox: cpu.sandboxCsv, portal: cpu.portalCsv }));
      if (!options['back-to-back']) after.csv.push(await settled(portal.pid!));
      c.push(await measured(() => portalExport('json', cookie, portal.pid!), { portal: cpu.portalJson }));
      if (!options['back-to-back']) after.json.push(await settled(portal.pid!));
    };
    const before = async (on: Baseline) => {
      d.push(await measuredOn({ portal: baselineCpu.csv, pid: on.pid }, () => portalExport('csv', on.cookie, on.pid, on.url)));
      await settled(on.pid);
      e.push(await measuredOn({ portal: baselineCpu.json, pid: on.pid }, () => portalExport('json', on.cookie, on.pid, on.url)));
      await settled(on.pid);
    };
    // With a baseline, which portal follows the raw walk alternates by round (the reader's own garbage included).
    if (baseline && round % 2 === 0) await before(baseline);
    await today();
    if (baseline && round % 2 === 1) await before(baseline);
    console.log(
      `[bench] ${label} round ${round}: raw ${a.at(-1)!.ms.toFixed(0)} ms, csv ${b.at(-1)!.ms.toFixed(0)} ms, json ${c.at(-1)!.ms.toFixed(0)} ms, bare csv ${f.at(-1)!.ms.toFixed(0)} ms; portal peak ${b.at(-1)!.peakMb.toFixed(0)} / ${c.at(-1)!.peakMb.toFixed(0)} MB`,
    );
  }

  const results = {
    picks: Number(PICKS),
    recordsPerWalk: a[0]!.records,
    upstream: label,
    rounds,
    medianMs: { raw: median(a.map((x) => x.ms)), csv: median(b.map((x) => x.ms)), json: median(c.map((x) => x.ms)) },
    ratio: { csv: median(b.map((x) => x.ms)) / median(a.map((x) => x.ms)), json: median(c.map((x) => x.ms)) / median(a.map((x) => x.ms)) },
    // Each export against the raw walk of its own round (seconds apart, so under the same background load).
    pairedRatio: { csv: median(b.map((x, i) => x.ms / a[i]!.ms)), json: median(c.map((x, i) => x.ms / a[i]!.ms)) },
    firstByteMs: {
      csv: median(b.map((x) => x.ttfbMs)),
      json: median(c.map((x) => x.ttfbMs)),
      rawFirstPage: median(a.map((x) => x.firstPageMs)),
    },
    memoryMb: { idle: idleMb, peak: Math.max(...b.map((x) => x.peakMb), ...c.map((x) => x.peakMb)) },
    bytes: { csv: b[0]!.bytes, json: c[0]!.bytes },
    // The floor of a CSV export on one thread: the raw walk and the CSV writing one after the other.
    csvWritingMs: csvAloneMs,
    csvFloorRatio: (median(a.map((x) => x.ms)) + csvAloneMs) / median(a.map((x) => x.ms)),
    // The bare CSV export (framework and papaparse, nothing checked) against the raw walk, and the portal's against it.
    bareCsv: {
      ms: median(f.map((x) => x.ms)),
      bytes: f[0]!.bytes,
      ratio: median(f.map((x) => x.ms)) / median(a.map((x) => x.ms)),
      portalOver: median(b.map((x, i) => x.ms / f[i]!.ms)),
    },
    cpuMs: {
      sandboxDuringRaw: median(cpu.sandboxRaw),
      sandboxDuringCsv: median(cpu.sandboxCsv),
      portalCsv: median(cpu.portalCsv),
      portalJson: median(cpu.portalJson),
    },
    // What each export leaves to do once its file has ended (keeping its record history), waited out before the next.
    afterExport: {
      cpuMs: { csv: median(after.csv.map((x) => x.cpuMs)), json: median(after.json.map((x) => x.cpuMs)) },
      ms: { csv: median(after.csv.map((x) => x.ms)), json: median(after.json.map((x) => x.ms)) },
    },
  };
  console.log(`\n[bench] export of every pick, ${label} upstream, medians of`, rounds, 'alternating rounds');
  console.log(`  records per walk       ${results.recordsPerWalk} (sandbox seeded with ${PICKS})`);
  console.log(`  (a) raw API walk       ${results.medianMs.raw.toFixed(0)} ms`);
  console.log(
    `  (b) portal CSV export  ${results.medianMs.csv.toFixed(0)} ms   b/a = ${results.ratio.csv.toFixed(3)}   (${(results.bytes.csv / 1e6).toFixed(1)} MB)`,
  );
  console.log(
    `  CSV writing alone      ${results.csvWritingMs.toFixed(0)} ms (papaparse over the same records, this process): raw walk + writing = ${results.csvFloorRatio.toFixed(3)}× the raw walk`,
  );
  console.log(
    `  (f) bare CSV export    ${results.bareCsv.ms.toFixed(0)} ms   f/a = ${results.bareCsv.ratio.toFixed(3)}   (${(results.bareCsv.bytes / 1e6).toFixed(1)} MB); the portal's over it round by round ${results.bareCsv.portalOver.toFixed(3)}`,
  );
  console.log(
    `  (c) portal JSON export ${results.medianMs.json.toFixed(0)} ms   c/a = ${results.ratio.json.toFixed(3)}   (${(results.bytes.json / 1e6).toFixed(1)} MB)`,
  );
  console.log(
    `  paired, round by round  median b/a = ${results.pairedRatio.csv.toFixed(3)}, c/a = ${results.pairedRatio.json.toFixed(3)} (each export over its own round's raw walk)`,
  );
  console.log(
    `  first byte             csv ${results.firstByteMs.csv.toFixed(0)} ms, json ${results.firstByteMs.json.toFixed(0)} ms; one raw page ${results.firstByteMs.rawFirstPage.toFixed(0)} ms (target: page + 50 ms)`,
  );
  console.log(
    `  portal memory          idle ${results.memoryMb.idle.toFixed(0)} MB, peak during exports ${results.memoryMb.peak.toFixed(0)} MB, growth ${(results.memoryMb.peak - results.memoryMb.idle).toFixed(0)} MB (target ≤ 64 MB)`,
  );
  console.log(
    `  CPU time (median)      sandbox ${results.cpuMs.sandboxDuringRaw} ms per raw walk, ${results.cpuMs.sandboxDuringCsv} ms per CSV export; portal ${results.cpuMs.portalCsv} ms per CSV, ${results.cpuMs.portalJson} ms per JSON export (2 cores shared by sandbox, portal and reader)`,
  );
  console.log(
    options['back-to-back']
      ? '  after each export      not waited out (--back-to-back): the next export ran while its record history was kept'
      : `  after each export      ${results.afterExport.cpuMs.csv} ms CPU in ${results.afterExport.ms.csv.toFixed(0)} ms after a CSV, ${results.afterExport.cpuMs.json} ms CPU in ${results.afterExport.ms.json.toFixed(0)} ms after a JSON export (record history kept in the background)`,
  );
  if (baseline) {
    const ms = { csv: median(d.map((x) => x.ms)), json: median(e.map((x) => x.ms)) };
    Object.assign(results, {
      baseline: { rev: BASELINE, medianMs: ms, cpuMs: { csv: median(baselineCpu.csv), json: median(baselineCpu.json) } },
    });
    console.log(
      `  baseline ${BASELINE}        CSV ${ms.csv.toFixed(0)} ms (${(ms.csv / results.medianMs.raw).toFixed(3)}), JSON ${ms.json.toFixed(0)} ms (${(ms.json / results.medianMs.raw).toFixed(3)}); its CPU ${median(baselineCpu.csv)} ms per CSV, ${median(baselineCpu.json)} ms per JSON export`,
    );
  }
  return results;
}

prepareBarePage({ onlyIfStale: true });
const all = [];
for (const [label, delayMs, rounds, port] of [
  ['instant', 0, ROUNDS, 0],
  [`remote (${REMOTE_MS} ms a page)`, REMOTE_MS, REMOTE_ROUNDS, 1],
] as const) {
  if (rounds === 0) continue; // --remote-rounds 0: the instant upstream alone
  const stack = await startStack({
    sandboxPort: 4510 + port,
    portalPort: 3510 + port,
    sandboxEnv: { SANDBOX_PICKS: PICKS, SANDBOX_RATE_LIMIT: '0' },
    replay: { port: 4515 + port, delayMs },
  });
  let baseline: Awaited<ReturnType<typeof startBaselinePortal>> | null = null;
  let bare: BarePage | null = null;
  try {
    bare = await startBarePage(3516 + port, stack.upstreamUrl, stack.key);
    // Inside the try: a baseline that does not come up must not leave the stack running.
    baseline = baselineDir ? await startBaselinePortal(baselineDir, stack, 3518 + port, PORTAL_NODE_ARGS) : null;
    const before = baseline ? { url: baseline.portalUrl, pid: baseline.portal.pid!, cookie: await signIn(baseline.portalUrl) } : null;
    all.push(await measure(stack, rounds, label, before, bare));
  } finally {
    bare?.stop();
    baseline?.stop();
    stack.stop();
  }
}
console.log(
  `\n[bench] ratios to a raw walk: instant CSV ${all[0]!.ratio.csv.toFixed(3)}, JSON ${all[0]!.ratio.json.toFixed(3)} (target 1.25)${all[1] ? `; remote CSV ${all[1].ratio.csv.toFixed(3)}, JSON ${all[1].ratio.json.toFixed(3)} (target 1.05)` : ''}`,
);
// When records move between an export's pages: what the second pass costs (--moving-rounds 0 skips it).
const MOVING_ROUNDS = options['moving-rounds'];
const moving = MOVING_ROUNDS > 0 ? await measureMoving(String(options['moving-picks']), MOVING_ROUNDS) : null;
await writeResult('export', { exports: all, moving });
