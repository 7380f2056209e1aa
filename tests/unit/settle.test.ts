import { describe, expect, it } from 'vitest';
import { IdSet } from '@/lib/picks-api/id-set';
import { newWalkReport, probeIndexes, settledPages, walkSummary } from '@/lib/picks-api/settle';
import type { PickList } from '@/lib/picks-api/schemas';

/** The settled walk's rules one by one, with passes scripted page by page (the sandbox's own tests are in tests/contract/moving-upstream.test.ts). */

const list = (ids: string[]): PickList => ({ data: ids.map((id) => ({ id })), page: { nextCursor: null, hasMore: false }, requestId: 'r' });

/** A pass per entry: its pages of ids. The probe answers with `probes` (page index → ids) or the page as first walked. */
function scripted(passes: string[][][], probes: (pass: number, at: number) => string[] | undefined = () => undefined) {
  let pass = -1;
  const asked: number[] = [];
  return {
    asked,
    pass: async function* () {
      pass += 1;
      for (const ids of passes[Math.min(pass, passes.length - 1)]!) yield list(ids);
    },
    probe: async (cursor: string | undefined) => {
      const at = cursor === undefined ? 1 : Number(cursor);
      asked.push(at);
      return probes(pass, at) ?? passes[Math.min(pass, passes.length - 1)]![at - 1]!;
    },
  };
}

async function walk(script: ReturnType<typeof scripted>, unsettled: 'throw' | 'report' = 'throw') {
  const report = newWalkReport();
  const ids: string[] = [];
  const pages = settledPages(script.pass, script.probe, { report, unsettled });
  try {
    for await (const page of pages) ids.push(...page.data.map((r) => r.id!));
  } catch (error) {
    return { ids, report, error: error as Error & { code?: string } };
  }
  return { ids, report, error: null };
}

describe('a settled walk', () => {
  it('when nothing moves: one pass, every record once, the first page asked again', async () => {
    const script = scripted([
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ]);
    const { ids, report } = await walk(script);
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    expect(report).toMatchObject({ passes: 1, duplicatesDropped: 0, moved: false, settled: true });
    expect(walkSummary(report)).toBeNull();
  });

  it('drops an id met twice (the first version kept), walks again and adds what the first pass skipped', async () => {
    // Pass 1: "x" published before the cursor: "b" is served again, "c" is never reached. Pass 2: the set as it is now.
    const script = scripted([
      [
        ['a', 'b'],
        ['b', 'd'],
      ],
      [
        ['x', 'a', 'b'],
        ['c', 'd'],
      ],
    ]);
    const { ids, report } = await walk(script);
    expect(ids).toEqual(['a', 'b', 'd', 'x', 'c']);
    expect(report).toMatchObject({ passes: 2, duplicatesDropped: 1, addedByLaterPasses: 2, moved: true, settled: true });
    expect(report.signals).toEqual(['an id met twice']);
  });

  it('takes a first page that changed by the end for a move, even without an id met twice', async () => {
    const script = scripted(
      [
        [['a', 'b'], ['d']], // "c" skipped: "a" was withdrawn after page 1 was read
        [['b', 'c'], ['d']],
      ],
      (pass, at) => (pass === 0 && at === 1 ? ['b', 'c'] : undefined),
    );
    const { ids, report } = await walk(script);
    expect(ids).toEqual(['a', 'b', 'd', 'c']);
    expect(report).toMatchObject({ passes: 2, addedByLaterPasses: 1, settled: true, signals: ['the first page changed'] });
  });

  it('fails after three passes that all moved, saying so; or only reports it when asked', async () => {
    const moving = () => scripted([[['a'], ['b']]], (_pass, at) => (at === 1 ? ['z'] : undefined));
    const failed = await walk(moving());
    expect(failed.error).toMatchObject({ code: 'WALK_UNSETTLED' });
    expect(failed.error!.message).toMatch(/did not settle after 3 passes/);
    expect(failed.report).toMatchObject({ passes: 3, settled: false });
    const reported = await walk(moving(), 'report');
    expect(reported.error).toBeNull();
    expect(reported.ids).toEqual(['a', 'b']);
    expect(reported.report).toMatchObject({ passes: 3, settled: false });
  });

  it('asks again the first page and the last two powers of two before the last page', () => {
    expect([1, 2, 3, 5, 200].map(probeIndexes)).toEqual([[1], [1], [1, 2], [1, 4, 2], [1, 128, 64]]);
  });
});

describe('the set of ids a walk has seen', () => {
  it('tells a million distinct ids apart and finds every one again', () => {
    const set = new IdSet();
    const id = (i: number) => `pk:premier-league:${i.toString(36)}~${(i * 7919).toString(36)}=`;
    // Counted in plain loops and asserted once: a million expect() calls cost more than the set itself.
    let refused = 0;
    for (let i = 0; i < 1_000_000; i += 1) refused += set.add(id(i)) ? 0 : 1;
    expect(refused).toBe(0);
    expect(set.size).toBe(1_000_000);
    let again = 0;
    for (let i = 0; i < 1_000_000; i += 997) again += set.add(id(i)) ? 0 : 1;
    expect(again).toBe(Math.ceil(1_000_000 / 997));
    let strangers = 0;
    for (let i = 1_000_000; i < 1_100_000; i += 1) strangers += set.has(id(i)) ? 1 : 0;
    expect(strangers).toBe(0);
  });
});
