import { performance } from 'node:perf_hooks';
import { median } from './support';
import { csvLines } from '../lib/export/csv';
import type { Pick } from '../lib/picks-api/schemas';

/** The floors bench:export measures a CSV export against, beside the raw walk. */

/**
 * The CSV writing alone: the portal's own csvLines (papaparse) over every record of a walk, pages as they come,
 * in this process with nothing else to do — the part of a CSV export no walk can overlap on one thread.
 */
export async function csvWritingMs(upstreamUrl: string, key: string): Promise<number> {
  const pages: Pick[][] = [];
  let cursor: string | null = null;
  do {
    const url = `${upstreamUrl}/api/v1/picks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = (await (await fetch(url, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
      data: Pick[];
      page: { nextCursor: string | null; hasMore: boolean };
    };
    pages.push(body.data);
    cursor = body.page.hasMore ? body.page.nextCursor : null;
  } while (cursor);
  const times: number[] = [];
  for (let run = 0; run < 4; run += 1) {
    const start = performance.now();
    for (const page of pages) csvLines(page);
    if (run > 0) times.push(performance.now() - start); // the first warms the code up
  }
  return median(times);
}

/**
 * The bare CSV export (bench/bare-page's /export: a Next.js route handler walking the upstream and writing every
 * page with papaparse, nothing checked, signed or kept) read to its end: the floor the framework and papaparse set.
 */
export async function bareCsvExport(bareUrl: string): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  const res = await fetch(`${bareUrl}/export`);
  if (!res.ok || !res.body) throw new Error(`bare export: HTTP ${res.status}`);
  const reader = res.body.getReader();
  let bytes = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
  return { ms: performance.now() - start, bytes };
}
