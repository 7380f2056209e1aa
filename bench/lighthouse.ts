import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';

/** Lighthouse (its default mobile settings) in the system Chromium, signed in through a Cookie header. */

export interface LighthouseScores {
  url: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  totalBlockingTimeMs: number;
  largestContentfulPaintMs: number;
  domElements: number;
  mainThreadMs: number;
  /** Requests to the portal itself other than static files: the page, and any the page's scripts made (prefetches). */
  portalRequests: number;
  /** Lighthouse's own measure of this machine's CPU speed at the time (higher is faster): its slow phone is simulated on top. */
  benchmarkIndex: number;
  /** Why Lighthouse gave no performance score (a run it could not finish), if it gave none. */
  error?: string;
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export async function lighthouseScores(url: string, cookie: string): Promise<LighthouseScores> {
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: FLAGS });
  try {
    const run = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices'],
      extraHeaders: cookie ? { Cookie: cookie } : {},
    });
    if (!run) throw new Error(`lighthouse gave no result for ${url}`);
    const { categories, audits } = run.lhr;
    const failed = Object.entries(audits)
      .filter(([, audit]) => audit.errorMessage)
      .map(([id, audit]) => `${id}: ${audit.errorMessage}`);
    const error =
      categories.performance?.score == null ? (run.lhr.runtimeError?.message ?? (failed.slice(0, 3).join('; ') || 'no score')) : undefined;
    const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100);
    const numeric = (id: string) => Math.round(audits[id]?.numericValue ?? NaN);
    return {
      url,
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      totalBlockingTimeMs: numeric('total-blocking-time'),
      largestContentfulPaintMs: numeric('largest-contentful-paint'),
      domElements: numeric('dom-size'),
      mainThreadMs: numeric('mainthread-work-breakdown'),
      portalRequests: portalRequests(audits['network-requests']?.details, new URL(url).origin),
      benchmarkIndex: Math.round(run.lhr.environment?.benchmarkIndex ?? NaN),
      ...(error ? { error } : {}),
    };
  } finally {
    chrome.kill();
  }
}

/**
 * Each page `runs` times, alternating (Lighthouse's simulated slow phone multiplies the CPU time it measures, so
 * a busy shared machine moves the score), and the median run of each: a run Lighthouse could not score (it
 * happens now and then with headless Chromium) is shown, not counted.
 */
export async function lighthouseMedians(pages: { url: string; cookie: string }[], runs: number) {
  const scores = pages.map(() => [] as LighthouseScores[]);
  for (let run = 0; run < runs; run += 1) {
    for (const [i, page] of pages.entries()) scores[i]!.push(await lighthouseScores(page.url, page.cookie));
  }
  const medians = [];
  for (const list of scores) {
    for (const failed of list.filter((l) => l.error)) console.log(`[bench] Lighthouse gave no score for ${failed.url}: ${failed.error}`);
    const sorted = list.filter((l) => !l.error).sort((a, b) => a.performance - b.performance);
    if (!sorted.length) continue;
    const { error: _none, ...median } = sorted[Math.floor(sorted.length / 2)]!;
    medians.push({ ...median, performanceOfEachRun: list.map((l) => (l.error ? 'failed' : l.performance)).join(' ') });
  }
  return medians;
}

/** Documents and fetches to the portal's own origin in Lighthouse's list of the load's network requests. */
function portalRequests(details: unknown, origin: string): number {
  const items = (details as { items?: { url?: string; resourceType?: string }[] } | undefined)?.items ?? [];
  return items.filter((item) => item.url?.startsWith(origin) && ['Document', 'Fetch'].includes(item.resourceType ?? '')).length;
}
