import { percentile } from './support';

/**
 * bench:soak's people and systems, each a loop until `until()` says stop, every request recorded by class
 * (page, export, api_v1) with its duration, status and error code; and the figures made of the records.
 */

/**
 * `upstream`: the bench's own probe of the upstream, beside the portal (what a page asks it, without the portal);
 * `bare`: its probe of the floor, a bare Next.js page of the same rows in a plain signed-in frame (bench/bare-page).
 */
export type RequestClass = 'page' | 'export' | 'api_v1' | 'upstream' | 'bare';

export interface Sample {
  class: RequestClass;
  /** When it started, ms since the soak's start. */
  at: number;
  ms: number;
  /** Exports: until the answer's headers (the whole file takes as long as the set is big). */
  firstByteMs: number;
  status: number;
  /** The error's code (a JSON error body, or a page's error panel), or null. */
  code: string | null;
  path: string;
  /** The answer said when to come back (Retry-After). */
  retryAfter: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const think = (least: number, most: number) => sleep(least + Math.random() * (most - least));

export class Recorder {
  readonly samples: Sample[] = [];
  readonly started = performance.now();

  async request(klass: RequestClass, url: string, init: RequestInit, read: 'text' | 'drain' = 'text'): Promise<Response | null> {
    const start = performance.now();
    const path = new URL(url).pathname + new URL(url).search;
    let status = 0;
    let code: string | null = null;
    let firstByteMs = NaN;
    let retryAfter = false;
    let res: Response | null = null;
    try {
      res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(120_000) });
      firstByteMs = performance.now() - start;
      status = res.status;
      retryAfter = res.headers.has('retry-after');
      if (read === 'drain' && res.ok) await res.body?.pipeTo(new WritableStream());
      else {
        const body = await res.text();
        code = /data-error-code="([A-Z_]+)"/.exec(body)?.[1] ?? /"code"\s*:\s*"([A-Z_]+)"/.exec(body)?.[1] ?? null;
        (res as Response & { bodyText?: string }).bodyText = body;
      }
    } catch (error) {
      code = (error as Error).name === 'TimeoutError' ? 'CLIENT_TIMEOUT' : 'NETWORK';
    }
    const ms = performance.now() - start;
    this.samples.push({ class: klass, at: start - this.started, ms, firstByteMs, status, code, path, retryAfter });
    return res;
  }
}

export const bodyOf = (res: Response | null) => (res as (Response & { bodyText?: string }) | null)?.bodyText ?? '';

const PAGES = [
  '/',
  '/picks',
  '/picks?sport=Football',
  '/picks?sport=Basketball&status=settled',
  '/picks?league=NBA',
  '/picks?status=upcoming',
  '/picks?status=settled&result=win',
  '/picks?from=2026-11-01&to=2026-11-10',
  '/picks?sport=Tennis&limit=200',
  '/picks?page=3',
  '/results',
  '/results?league=Premier+League',
  '/licence',
  '/changes',
  '/deliveries',
  '/coverage',
];

/** Every page asked for twice before the clock starts: what a portal that has been up a while has warm. */
export async function warmUp(portalUrl: string, cookie: string) {
  for (const path of [...PAGES, ...PAGES]) await (await fetch(`${portalUrl}${path}`, { headers: { cookie } })).arrayBuffer();
}

/** A person: a page, some seconds reading it (`thinkMs`), the next (filters changed, a page further, another screen). */
export async function person(
  rec: Recorder,
  portalUrl: string,
  cookie: string,
  until: () => boolean,
  offset: number,
  thinkMs: [number, number],
) {
  await think(0, thinkMs[1]); // people do not all arrive in the same second
  for (let n = offset; !until(); n += 1) {
    await rec.request('page', `${portalUrl}${PAGES[n % PAGES.length]}`, { headers: { cookie } });
    await think(...thinkMs);
  }
}

/** Someone exporting: a whole set to a file, a pause, the next (CSV and JSON in turn). */
export async function exporter(rec: Recorder, portalUrl: string, cookie: string, until: () => boolean) {
  for (let n = 0; !until(); n += 1) {
    const format = n % 2 ? 'json' : 'csv';
    const res = await rec.request(
      'export',
      `${portalUrl}/api/export/picks?format=${format}&sport=${n % 3 ? 'Football' : 'Tennis'}`,
      { headers: { cookie } },
      'drain',
    );
    await sleep(res?.status === 429 ? 5_000 : 3_000);
  }
}

/** A partner's loader walking API v1 with its token, 200 a page, a breath between pages, honouring Retry-After. */
export async function consumer(rec: Recorder, portalUrl: string, token: string, until: () => boolean) {
  let cursor: string | null = null;
  while (!until()) {
    const res = await rec.request('api_v1', `${portalUrl}/api/v1/picks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!res?.ok) {
      await sleep(Number(res?.headers.get('retry-after') ?? 5) * 1000);
      continue;
    }
    const page = JSON.parse(bodyOf(res)) as { page: { nextCursor: string | null; hasMore: boolean } };
    cursor = page.page.hasMore ? page.page.nextCursor : null;
    await sleep(cursor ? 250 : 10_000); // a walk done: the next one starts a little later
  }
}

/**
 * The upstream asked directly, as a page asks it (50 records), twice a second: how much of a page's time under
 * everything is the upstream's own (its one event loop serves the pages, exports and walks of every actor).
 */
export async function upstreamProbe(rec: Recorder, upstreamUrl: string, key: string, until: () => boolean) {
  for (let n = 0; !until(); n += 1) {
    await rec.request('upstream', `${upstreamUrl}/api/v1/picks?limit=50${n % 2 ? '&sport=Football' : ''}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    await sleep(500);
  }
}

/**
 * The floor of a records page, asked twice a second beside the people: the bare Next.js table of 50 records inside
 * a plain frame, its session read from the portal's cookie (bench/bare-page/app/framed). It shares the machine and
 * the upstream with the portal and does nothing of the portal's, so its p95 with everything against alone is what
 * the load does to any Next.js page here.
 */
export async function bareProbe(rec: Recorder, bareUrl: string, cookie: string, until: () => boolean) {
  for (let n = 0; !until(); n += 1) {
    await rec.request('bare', `${bareUrl}/framed/rows?limit=50${n % 2 ? '&sport=Football' : ''}`, { headers: { cookie } });
    await sleep(500);
  }
}

/** How many times each key comes. */
export function tally(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}

/** The figures of one class: count, percentiles, errors by status and code, the longest request. */
export function classFigures(samples: Sample[]) {
  const ms = samples.map((s) => s.ms);
  const errors = tally(samples.filter((s) => s.status >= 400 || s.status === 0 || s.code).map((s) => `${s.status} ${s.code ?? ''}`.trim()));
  const longest = samples.reduce<Sample | null>((a, s) => (!a || s.ms > a.ms ? s : a), null);
  const r = (x: number) => Math.round(x);
  return {
    count: samples.length,
    p50: r(percentile(ms, 50)),
    p95: r(percentile(ms, 95)),
    p99: r(percentile(ms, 99)),
    errors,
    longest: longest ? { ms: r(longest.ms), path: longest.path, status: longest.status, code: longest.code } : null,
  };
}

/** Codes the upstream causes (its answers, its silence, its throttling): the rest are the portal's own doing. */
const UPSTREAM_CODES = /^(UPSTREAM_|THROTTLED|WALK_UNSETTLED|PAGINATION_BROKEN|UNAVAILABLE$)/;

/** Answers of 500 or 504 the upstream did not cause, and requests over 10 s (an export: to its headers) it did not cause. */
export function portalFaults(samples: Sample[]) {
  const own = (s: Sample) => s.class !== 'upstream' && s.class !== 'bare' && !(s.code && UPSTREAM_CODES.test(s.code));
  return {
    serverErrors: samples.filter((s) => (s.status === 500 || s.status === 504) && own(s)).map((s) => `${s.status} ${s.code} ${s.path}`),
    slow: samples
      .filter((s) => (s.class === 'export' ? s.firstByteMs : s.ms) > 10_000 && own(s) && !s.retryAfter)
      .map((s) => `${Math.round(s.ms)} ms ${s.status} ${s.code ?? ''} ${s.path}`),
  };
}
