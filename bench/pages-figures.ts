import { median, pairedRatio } from './support';

/** Figures `npm run bench:pages` (bench/pages.ts) works out from its medians. */

export const FRAME = 'the frame alone';

/**
 * What a page costs beyond the signed-in frame every page has (the frame alone: the not-found page), against
 * what the bare table costs beyond the bare empty page (and beyond the bare frame): the content's own ratio. The overview has no bare
 * content to set it against; its time beyond the frame is shown.
 */
export function beyondTheFrame(rows: { page: string; portalMs: number; bareMs: number; framedMs: number | null }[]) {
  const frame = rows.find((r) => r.page === FRAME)!;
  const pages = rows
    .filter((r) => r.page !== FRAME && r.page !== '/login')
    .map((r) => {
      const own = r.portalMs - frame.portalMs;
      const bareOwn = r.page.startsWith('/ (') ? null : r.bareMs - frame.bareMs;
      const framedOwn = bareOwn === null || r.framedMs === null || frame.framedMs === null ? null : r.framedMs - frame.framedMs;
      return {
        page: r.page,
        ownMs: +own.toFixed(1),
        bareOwnMs: bareOwn === null ? null : +bareOwn.toFixed(1),
        ratio: bareOwn ? +(own / bareOwn).toFixed(2) : null,
        framedOwnMs: framedOwn === null ? null : +framedOwn.toFixed(1),
        framedRatio: framedOwn ? +(own / framedOwn).toFixed(2) : null,
      };
    });
  return { frame, pages };
}

/** HTML per row: the growth from 50 to 200 rows, so the page's fixed part does not count. */
export function htmlPerRowOf(name: 'picks' | 'results', samples: Map<string, { portalBytes: number; bareBytes: number }>) {
  const [s50, s200] = [samples.get(`/${name} 50 rows`)!, samples.get(`/${name} 200 rows`)!];
  const portal = (s200.portalBytes - s50.portalBytes) / 150 / 1024;
  const bareRow = (s200.bareBytes - s50.bareBytes) / 150 / 1024;
  return {
    page: `/${name}`,
    portalKiBPerRow: +portal.toFixed(2),
    bareKiBPerRow: +bareRow.toFixed(2),
    ratio: +(portal / bareRow).toFixed(2),
  };
}

/** One request timed from here, and the bytes it answered (its status checked). */
export async function timed(url: string, headers: Record<string, string> = {}, status = 200): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  const res = await fetch(url, { headers, redirect: 'manual' });
  const bytes = (await res.arrayBuffer()).byteLength;
  if (res.status !== status) throw new Error(`${url}: HTTP ${res.status}`);
  return { ms: performance.now() - start, bytes };
}

/**
 * Issue 71: a page from the index (a search) costs no more than the same page read from the upstream (replayed from
 * memory): their whole times in the same rounds, and the ratio round by round (its median and middle half).
 */
export function indexAgainstUpstream(samples: Map<string, { whole: number[] }>) {
  const [fromIndex, fromUpstream] = ['/picks search 50 rows', '/picks 50 rows'].map((name) => samples.get(name)!.whole);
  const byRound = pairedRatio(fromIndex!, fromUpstream!);
  const ms = (values: number[]) => +median(values).toFixed(1);
  return { indexMs: ms(fromIndex!), upstreamMs: ms(fromUpstream!), ratio: +byRound.median.toFixed(2), middleHalf: byRound.spread };
}
