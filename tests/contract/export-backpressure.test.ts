import { describe, expect, it } from 'vitest';
import { planExport, startExport } from '@/lib/export/stream';
import { createPicksClient } from '@/lib/picks-api/client';
import { sandboxOverHttp } from '../support/sandbox';

/**
 * Backpressure of the export stream, against the sandbox over real HTTP: a reader that stops reading
 * stops the walk. The portal may be at most one page ahead of what was read (the page queued in the
 * stream) plus the one page it prefetches; it never buffers the set. Counted in upstream requests.
 */

const upstream = sandboxOverHttp();

function countingClient() {
  const cursors: (string | null)[] = [];
  const client = createPicksClient({
    baseUrl: upstream.baseUrl,
    apiKey: 'sandbox-full-key',
    fetch: (input, init) => {
      cursors.push(new URL(String(input)).searchParams.get('cursor'));
      return fetch(input, init);
    },
  });
  return { client, requests: () => cursors.length };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(['csv', 'json'] as const)('a slow reader of a %s export', (format) => {
  it('holds the walk where the reader is, then gets every record once the reader goes on', async () => {
    const reference = countingClient();
    const ids: string[] = [];
    for await (const pick of reference.client.walkPicks({})) ids.push(pick.id!);
    const pages = reference.requests();
    expect(pages).toBeGreaterThan(20);

    const { client, requests } = countingClient();
    const started = await startExport(planExport('picks', new URLSearchParams(), format, null), { client });
    const reader = started.stream.getReader();
    const chunks: Uint8Array[] = [];
    const read = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        const { value, done } = await reader.read();
        expect(done).toBe(false);
        chunks.push(value!);
      }
    };

    await read(1);
    await settle(400);
    expect(requests()).toBeLessThanOrEqual(3); // page 1 read, page 2 queued, page 3 asked for at most
    await settle(400);
    expect(requests()).toBeLessThanOrEqual(3); // still: nothing moves while the reader waits

    await read(9);
    await settle(400);
    expect(requests()).toBeGreaterThanOrEqual(10);
    expect(requests()).toBeLessThanOrEqual(12);

    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(requests()).toBe(pages); // every page once, no extra request
    const text = Buffer.concat(chunks).toString('utf8');
    const exported =
      format === 'json'
        ? (JSON.parse(text) as { data: { id: string }[] }).data.map((p) => p.id)
        : text
            .trim()
            .split('\r\n')
            .slice(1)
            .map((line) => line.slice(0, line.indexOf(',')));
    expect(exported).toEqual(ids);
  });
});
