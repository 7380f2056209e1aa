import { median, signIn, startStack } from './support';

/**
 * The moving-upstream phase of `npm run bench:export`: the sandbox itself (no replay) with offset cursors
 * and its walk events, so records are published and withdrawn between the pages of an export. Rounds of a
 * JSON export with nothing moving, then one while records move; prints each export's time and what its
 * walk did (passes, duplicates dropped, records the later passes added), read from the file's "walk" block.
 */

interface Walk {
  passes: number;
  duplicatesDropped: number;
  addedByLaterPasses: number;
  settled: boolean;
}

async function jsonExport(url: string, cookie: string): Promise<{ ms: number; count: number; walk: Walk | null }> {
  const start = performance.now();
  const res = await fetch(`${url}/api/export/picks?format=json`, { headers: { cookie } });
  const text = await res.text();
  const ms = performance.now() - start;
  if (!res.ok) throw new Error(`export: HTTP ${res.status}`);
  const tail = JSON.parse(`{${text.slice(text.lastIndexOf('"count"'))}`) as { count: number; walk?: Walk };
  return { ms, count: tail.count, walk: tail.walk ?? null };
}

export async function measureMoving(picks: string, rounds: number) {
  const stack = await startStack({
    sandboxPort: 4530,
    portalPort: 3530,
    sandboxEnv: { SANDBOX_PICKS: picks, SANDBOX_RATE_LIMIT: '0', SANDBOX_CURSORS: 'offset', SANDBOX_TEST_HOOKS: '1' },
  });
  try {
    const cookie = await signIn(stack.portalUrl);
    const hook = (body: unknown) => fetch(`${stack.upstreamUrl}/__sandbox/during-walk`, { method: 'POST', body: JSON.stringify(body) });
    const ids: string[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = (await (
        await fetch(`${stack.upstreamUrl}/api/v1/picks?${query}`, { headers: { Authorization: `Bearer ${stack.key}` } })
      ).json()) as {
        data: { id: string }[];
        page: { nextCursor: string | null; hasMore: boolean };
      };
      ids.push(...page.data.map((r) => r.id));
      cursor = page.page.hasMore ? page.page.nextCursor : null;
    }
    await jsonExport(stack.portalUrl, cookie); // warm-up
    const still: Awaited<ReturnType<typeof jsonExport>>[] = [];
    const moving: Awaited<ReturnType<typeof jsonExport>>[] = [];
    const pages = Math.ceil(ids.length / 200);
    for (let round = 1; round <= rounds; round += 1) {
      still.push(await jsonExport(stack.portalUrl, cookie));
      // 50 published behind the cursor a third of the way in, 30 withdrawn behind it two thirds of the way in.
      const behind = (share: number, count: number) =>
        Array.from({ length: count }, (_, i) => ids[Math.floor((ids.length * share * i) / count)]!);
      const control = (name: string, body: unknown) =>
        fetch(`${stack.upstreamUrl}/__sandbox/${name}`, { method: 'POST', body: JSON.stringify(body) });
      await control('retract', { ids: behind(0.3, 50) }); // not yet published when the export starts
      await hook({
        events: [
          { afterPages: Math.floor(pages / 3), restore: behind(0.3, 50) },
          { afterPages: Math.floor((2 * pages) / 3), retract: behind(0.6, 30).filter((id) => !behind(0.3, 50).includes(id)) },
        ],
      });
      moving.push(await jsonExport(stack.portalUrl, cookie));
      await control('restore', { ids }); // everything back for the next round
      const w = moving.at(-1)!.walk;
      console.log(
        `[bench] moving round ${round}: still ${still.at(-1)!.ms.toFixed(0)} ms; moving ${moving.at(-1)!.ms.toFixed(0)} ms, ${w ? `${w.passes} passes, ${w.duplicatesDropped} duplicates dropped, ${w.addedByLaterPasses} added, ${w.settled ? 'settled' : 'unsettled'}` : 'nothing seen'}`,
      );
    }
    const results = {
      upstream: 'sandbox with offset cursors',
      records: ids.length,
      medianMs: { still: median(still.map((x) => x.ms)), moving: median(moving.map((x) => x.ms)) },
      walks: moving.map((x) => x.walk),
    };
    console.log(`\n[bench] while the upstream moves (${ids.length} records, medians of ${rounds})`);
    console.log(
      `  JSON export, nothing moving ${results.medianMs.still.toFixed(0)} ms; records moving ${results.medianMs.moving.toFixed(0)} ms (${(results.medianMs.moving / results.medianMs.still).toFixed(2)}x: the second pass)`,
    );
    return results;
  } finally {
    stack.stop();
  }
}
