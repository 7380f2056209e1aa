import { BARE_DIR, bareBuilt, buildNext, prepareBarePage, startBarePage } from './bare';
import { firstLoadKb } from './first-load';
import { lighthouseMedians } from './lighthouse';
import { benchOptions, writeResult } from './options';
import { prepareBaseline, startBaselinePortal } from './baseline';
import { PORTAL_NODE_ARGS } from '../scripts/portal-node-options';
import { beyondTheFrame, FRAME, htmlPerRowOf, indexAgainstUpstream, timed } from './pages-figures';
import { assertPortFree, indexHolds, median, pairedRatio, signIn, startStack } from './support';

/**
 * `npm run bench:pages`: what the portal adds to a page view, against a bare Next.js page, in one run.
 * Both production builds are made first (the portal's and bench/bare-page, with the same `next`), then a
 * sandbox with throttling off serves both through bench/replay.ts (its answers replayed from memory
 * after the warm-up round). ROUNDS (25) alternating rounds (pages in turn forward and backward) of, for each page: the signed-in portal page, the
 * upstream calls it made (counted by the replay, asked again and timed from here), the bare page.
 * "Over the upstream" is a page's time minus the time of the upstream calls it made, medians of the rounds.
 * Then first-load JavaScript (gzip) of /picks, /coverage and the bare table, and Lighthouse (mobile, signed in)
 * on /picks with 50 rows and /licence. --skip-build reuses both builds; --skip-lighthouse skips it.
 * --baseline <commit> measures that commit's portal in the same rounds (built once outside the repository):
 * its ratio to the bare page beside today's, and today's time against it.
 */

const options = benchOptions('bench:pages', 'What the portal adds to a page view, against a bare Next.js page.', {
  rounds: { default: 25, help: 'alternating rounds of every page' },
  'skip-build': { default: false, help: "reuse both builds (the portal's and the bare page's)" },
  'skip-lighthouse': { default: false, help: 'leave out Lighthouse' },
  'lighthouse-runs': { default: 5, help: 'Lighthouse runs per page (the median is reported)' },
  'framed-table': { default: 'rows', help: "the framed floor's table: rows (server markup) or client-rows (a sortable client table)" },
  'framed-frame': {
    default: 'plain',
    help: "the framed floor's frame: plain (server markup) or client (a client component keeping its state)",
  },
  baseline: {
    default: 'none',
    help: 'an earlier commit whose pages are measured in the same rounds (its time over the upstream, and today against it)',
  },
});
const ROUNDS = options.rounds;
// The framed floor's table and frame: plain server markup, or client components as the portal draws its own.
const [FRAMED_TABLE, FRAMED] = [options['framed-table'], options['framed-frame'] === 'client' ? '/framed-client' : '/framed'];
if (!['rows', 'client-rows'].includes(FRAMED_TABLE) || !['plain', 'client'].includes(options['framed-frame']))
  throw new Error('--framed-table is rows or client-rows; --framed-frame is plain or client');
const BARE_PORT = 3532;
const BASELINE_PORT = 3533;
// The baseline (a commit; "none" to skip) is unpacked and built before anything is measured (bench/baseline.ts).
const baselineDir = options.baseline === 'none' ? null : prepareBaseline(options.baseline);

if (options['skip-build'] && !bareBuilt()) {
  console.error(`[bench] --skip-build, but there is no bare page build in ${BARE_DIR}: run once without it.`);
  process.exit(1);
}
if (!options['skip-build']) {
  buildNext('.', 'the portal');
  prepareBarePage();
}

// Both pages read the sandbox's answers through the replay (bench/replay.ts): after the warm-up round
// every upstream answer comes from memory, so the upstream time subtracted is small and steady.
await assertPortFree(BARE_PORT);
const stack = await startStack({
  sandboxPort: 4530,
  portalPort: 3530,
  sandboxEnv: { SANDBOX_RATE_LIMIT: '0' },
  replay: { port: 4531, delayMs: 0 },
});
const { upstreamUrl, portalUrl, key } = stack;
const bare = await startBarePage(BARE_PORT, upstreamUrl, key).catch((error: unknown) => {
  stack.stop();
  throw error;
});
const bareUrl = bare.url;
const baseline = baselineDir
  ? await startBaselinePortal(baselineDir, stack, BASELINE_PORT, PORTAL_NODE_ARGS).catch((error: unknown) => {
      bare.stop();
      stack.stop();
      throw error;
    })
  : null;

/** The replay's requests per route, and those of them not answered from memory (bench/replay.ts). */
const replayStats = async () =>
  (await (await fetch(`${upstreamUrl}/__replay/stats`)).json()) as { byRoute: Record<string, number>; missed: Record<string, number> };
const upstreamRequests = async () => (await replayStats()).byRoute;

/** The upstream calls a portal page made (by the replay's count per route), asked again and timed from here. */
async function replayUpstream(before: Record<string, number>, after: Record<string, number>, paths: Record<string, string>) {
  let ms = 0;
  const made: string[] = [];
  for (const [route, count] of Object.entries(after)) {
    for (let i = 0; i < count - (before[route] ?? 0); i += 1) {
      const path = paths[route];
      if (!path) throw new Error(`the page called ${route}, which this benchmark does not replay`);
      ms += (await timed(`${upstreamUrl}${path}`, { Authorization: `Bearer ${key}` })).ms;
      made.push(route);
    }
  }
  return { ms, made };
}

interface Case {
  name: string;
  portal: string;
  bare: string | null;
  /** The bare page's own upstream call (it makes at most one), timed the same way. */
  bareUpstream: string | null;
  /** The bare page inside the floor of a signed-in frame (bench/bare-page/app/framed), signed in with the portal's cookie. */
  framed: string | null;
  upstream: Record<string, string>;
  /** The status the portal answers with (the frame alone is the not-found page). */
  status?: number;
}

const ROUTES = (limit: number) => ({ me: '/api/v1/me', health: '/api/v1/health', picks: `/api/v1/picks?limit=${limit}` });
const CASES: Case[] = [50, 200].flatMap((limit) => [
  {
    name: `/picks ${limit} rows`,
    portal: `/picks?limit=${limit}`,
    bare: `/rows?limit=${limit}`,
    bareUpstream: `/api/v1/picks?limit=${limit}`,
    framed: `${FRAMED}/${FRAMED_TABLE}?limit=${limit}`,
    upstream: ROUTES(limit),
  },
  {
    name: `/results ${limit} rows`,
    portal: `/results?limit=${limit}`,
    bare: `/rows?limit=${limit}`,
    bareUpstream: `/api/v1/picks?limit=${limit}`,
    framed: `${FRAMED}/${FRAMED_TABLE}?limit=${limit}`,
    upstream: { ...ROUTES(limit), results: `/api/v1/results?limit=${limit}` },
  },
]);
// The records page with a search (issue 71): the same page of 50, answered from the portal's index.
CASES.splice(1, 0, { ...CASES[0]!, name: '/picks search 50 rows', portal: '/picks?q=football&limit=50' });
CASES.push(
  { name: '/login', portal: '/login', bare: '/', bareUpstream: null, framed: null, upstream: {} },
  { name: '/ (overview)', portal: '/', bare: '/', bareUpstream: null, framed: FRAMED, upstream: ROUTES(50) },
  // The signed-in frame around every page (header, navigation, account menu) with the least inside it: the
  // not-found page. What a page costs beyond it is its own content, set against the bare page's.
  { name: FRAME, portal: '/no-such-page', bare: '/', bareUpstream: null, framed: FRAMED, upstream: {}, status: 404 },
);

try {
  const cookie = await signIn(portalUrl);
  const baselineCookie = baseline ? await signIn(baseline.portalUrl) : '';
  // The search's page needs the index, which the feed's first poll fills.
  await indexHolds(portalUrl, cookie, 'football', 50);
  const samples = new Map(
    CASES.map((c) => [
      c.name,
      {
        portal: [] as number[],
        /** The portal page's whole time, its upstream calls included. */
        whole: [] as number[],
        bare: [] as number[],
        framed: [] as number[],
        baseline: [] as number[],
        portalBytes: 0,
        bareBytes: 0,
        framedBytes: 0,
        baselineBytes: 0,
        calls: '',
      },
    ]),
  );
  for (let round = 0; round <= ROUNDS; round += 1) {
    // The order of the pages reverses every round too: a page that leaves garbage behind (200 rows) would
    // otherwise always weigh on the same next page.
    for (const c of round % 2 === 0 ? CASES : [...CASES].reverse()) {
      const s = samples.get(c.name)!;
      // Which of the two goes first alternates by round: what one server leaves behind (a collection, a
      // socket closing) then weighs on both alike.
      const bareFirst = round % 2 === 1;
      const bareRound = async () => {
        // The bare page and the framed one take turns going first too (every other pair of rounds).
        const framedRun = async () => (c.framed ? await timed(`${bareUrl}${c.framed}`, { cookie }) : null);
        const framedFirst = Math.floor(round / 2) % 2 === 1 ? await framedRun() : null;
        const page = c.bare ? await timed(`${bareUrl}${c.bare}`) : null;
        const upstream = c.bareUpstream ? (await timed(`${upstreamUrl}${c.bareUpstream}`, { Authorization: `Bearer ${key}` })).ms : 0;
        const framed = framedFirst ?? (await framedRun());
        return { page, upstream, framed };
      };
      const bareBefore = bareFirst ? await bareRound() : null;
      // The baseline goes before today's portal every other round too: measured always after it, the very same
      // build read cheaper (an A/A run).
      let earlier: number | null = null;
      const baselineRound = async () => {
        if (!baseline) return;
        const before = await upstreamRequests();
        const page = await timed(`${baseline.portalUrl}${c.portal}`, c.portal === '/login' ? {} : { cookie: baselineCookie }, c.status);
        earlier = page.ms - (await replayUpstream(before, await upstreamRequests(), c.upstream)).ms;
        s.baselineBytes = page.bytes;
      };
      if (round % 4 >= 2) await baselineRound();
      const before = await upstreamRequests();
      const portal = await timed(`${portalUrl}${c.portal}`, c.portal === '/login' ? {} : { cookie }, c.status);
      const replayed = await replayUpstream(before, await upstreamRequests(), c.upstream);
      const { page: bareRun, upstream: bareUp, framed } = bareBefore ?? (await bareRound());
      if (round % 4 < 2) await baselineRound();
      if (round === 0) continue; // warm-up
      if (earlier !== null) s.baseline.push(earlier);
      s.portal.push(portal.ms - replayed.ms);
      s.whole.push(portal.ms);
      if (bareRun) s.bare.push(bareRun.ms - bareUp);
      // The framed bare table asks the upstream once as the bare one does: the same upstream time comes off.
      if (framed) s.framed.push(framed.ms - bareUp);
      s.portalBytes = portal.bytes;
      s.bareBytes = bareRun?.bytes ?? 0;
      s.framedBytes = framed?.bytes ?? 0;
      s.calls = replayed.made.join(' + ') || 'none';
    }
  }

  const paired = (s: { portal: number[]; baseline: number[] }) => {
    const { median: m, spread } = pairedRatio(s.portal, s.baseline);
    return `${m.toFixed(2)} (${spread})`;
  };
  const rows = CASES.map((c) => {
    const s = samples.get(c.name)!;
    // The bare page is the same page beside /picks and /results: its samples are pooled by address.
    const pooled = CASES.filter((o) => o.bare === c.bare).flatMap((o) => samples.get(o.name)!.bare);
    const pooledFramed = CASES.filter((o) => c.framed && o.framed === c.framed).flatMap((o) => samples.get(o.name)!.framed);
    const [p, b] = [median(s.portal), median(pooled)];
    const f = pooledFramed.length ? median(pooledFramed) : null;
    return {
      page: c.name,
      upstreamCalls: s.calls,
      portalMs: +p.toFixed(1),
      bareMs: +b.toFixed(1),
      ratio: +(p / b).toFixed(2),
      // The floor of a signed-in page: the bare page inside a plain frame of the same markup, its session read by next-auth.
      framedMs: f === null ? null : +f.toFixed(1),
      framedRatio: f === null ? null : +(p / f).toFixed(2),
      // Against the baseline also round by round (both measured in each round): the middle half of those ratios.
      ...(baseline
        ? { baselineRatio: +(median(s.baseline) / b).toFixed(2), vsBaseline: +(p / median(s.baseline)).toFixed(2), roundByRound: paired(s) }
        : {}),
      portalKiB: +(s.portalBytes / 1024).toFixed(1),
      bareKiB: +(s.bareBytes / 1024).toFixed(1),
      framedKiB: c.framed ? +(s.framedBytes / 1024).toFixed(1) : null,
      ...(baseline ? { baselineKiB: +(s.baselineBytes / 1024).toFixed(1) } : {}),
    };
  });
  console.log(
    `\n[bench] time over the upstream calls, medians of ${ROUNDS} rounds (bare: ${bareUrl}/rows and /${baseline ? `; baseline ${options.baseline}` : ''})`,
  );
  console.table(rows);
  // After the warm-up, an answer not from memory would put the sandbox's own work into a page's time.
  console.log(
    `[bench] upstream answers not replayed from memory (the warm-up's among them): ${JSON.stringify((await replayStats()).missed)}`,
  );
  const indexVsUpstream = indexAgainstUpstream(samples);
  console.log('\n[bench] a page of 50 from the index (a search) against one read from the upstream, whole times, round by round');
  console.table([indexVsUpstream]);
  const beyond = beyondTheFrame(rows);
  console.log(
    `\n[bench] the frame alone ${beyond.frame.portalMs} ms, the bare empty page ${beyond.frame.bareMs} ms, inside the bare frame ${beyond.frame.framedMs} ms; each page beyond the frame, against the bare table beyond the bare empty page (and beyond the bare frame)`,
  );
  console.table(beyond.pages);

  const htmlPerRow = (['picks', 'results'] as const).map((name) => htmlPerRowOf(name, samples));
  console.log('\n[bench] HTML per row (uncompressed, rows 51 to 200)');
  console.table(htmlPerRow);

  const firstLoadJs = {
    '/picks': await firstLoadKb(`${portalUrl}/picks?limit=50`, cookie),
    '/coverage': await firstLoadKb(`${portalUrl}/coverage`, cookie),
    '/licence': await firstLoadKb(`${portalUrl}/licence`, cookie),
    'bare /rows': await firstLoadKb(`${bareUrl}/rows?limit=50`, ''),
  };
  console.log('\n[bench] first-load JavaScript, kB gzip (targets: /picks 120, /coverage 200)');
  console.table(firstLoadJs);

  // The bare page too, as this machine's reference: the same framework and rows, nothing of the portal's.
  const runs = options['lighthouse-runs'];
  const lighthouse = options['skip-lighthouse']
    ? []
    : await lighthouseMedians(
        [
          { url: `${portalUrl}/picks?limit=50`, cookie },
          { url: `${portalUrl}/licence`, cookie },
          { url: `${bareUrl}/rows?limit=50`, cookie: '' },
        ],
        runs,
      );
  if (lighthouse.length) {
    console.log(
      `\n[bench] Lighthouse, mobile defaults, signed in, the median of ${runs} runs (targets: performance ≥ 95 on /picks, 100 for the others; the bare page as this machine's reference; benchmarkIndex is Lighthouse's measure of the machine's speed)`,
    );
    console.table(lighthouse);
  }
  await writeResult('pages', { rounds: ROUNDS, rows, indexVsUpstream, beyondTheFrame: beyond.pages, htmlPerRow, firstLoadJs, lighthouse });
} finally {
  bare.stop();
  baseline?.stop();
  stack.stop();
}
