import { gzipSync } from 'node:zlib';

/** The gzip size of every script the page's HTML loads (what a first visit downloads before it is interactive). */
export async function firstLoadKb(url: string, cookie: string) {
  const html = await (await fetch(url, { headers: cookie ? { cookie } : {} })).text();
  // noModule scripts (polyfills) are skipped by every browser that runs modules, so they are not counted.
  const tags = [...html.matchAll(/<script([^>]*)\ssrc="([^"]+)"([^>]*)>/g)].filter((m) => !/nomodule/i.test(m[1]! + m[3]!));
  const sources = new Set(tags.map((m) => m[2]!.replace(/&amp;/g, '&')));
  let bytes = 0;
  for (const src of sources) bytes += gzipSync(Buffer.from(await (await fetch(new URL(src, url))).arrayBuffer())).byteLength;
  return { scripts: sources.size, kB: +(bytes / 1000).toFixed(1) };
}
