import { afterEach, describe, expect, it } from 'vitest';
import { readEventsAfter } from '@/lib/events/read';
import { builtEvent, forgetHeld, heldAfter, hold, MAX_RECENT, recentHeld, startHolding } from '@/lib/events/recent';
import type { EventRow } from '@/lib/store/events';
import type { TokenScope } from '@/lib/vocabulary/tokens';

/**
 * The newest entries held in memory for every stream of the process: all of them after a point or none (a stream
 * further behind reads the store), each event built once per content withheld, and read without the store.
 */

const scope: TokenScope = { content: ['picks', 'results', 'changes'], sports: [], leagues: [], from: null, to: null };
const row = (seq: number, league = 'ATP'): EventRow => ({
  seq,
  detectedAt: '2026-11-20T14:05:00.000Z',
  pickId: `p${seq}`,
  kinds: ['new'],
  display: { sport: 'Tennis', league, eventDate: '2026-11-21T10:00:00Z' },
  before: null,
  after: { status: 'upcoming', result: null, publishedAt: null },
  digest: `d${seq}`,
  prevDigest: null,
});
const bodies = (rows: EventRow[]) => new Map(rows.map((r) => [r.digest!, JSON.stringify({ id: r.pickId, league: r.display.league })]));

afterEach(forgetHeld);

describe("the process's memory of the newest entries", () => {
  it('gives every entry after a point it holds, and nothing for a point before it', () => {
    startHolding(10);
    const rows = [11, 12, 13, 14].map((seq) => row(seq));
    hold(rows, bodies(rows));
    expect(heldAfter(12, 14)!.map((r) => r.seq)).toEqual([13, 14]);
    expect(heldAfter(10, 14)!.map((r) => r.seq)).toEqual([11, 12, 13, 14]);
    expect(heldAfter(14, 14)).toEqual([]);
    expect(heldAfter(9, 14)).toBeNull();
    // Short of the feed's last number (the tail stopped with the last stream): nothing from memory.
    expect(heldAfter(12, 15)).toBeNull();
    // Held twice: kept once.
    hold([row(14)], new Map());
    expect(heldAfter(13, 14)!.map((r) => r.seq)).toEqual([14]);
  });

  it('lets the oldest go beyond what it holds, and their bodies with them', () => {
    startHolding(0);
    const rows = Array.from({ length: MAX_RECENT + 10 }, (_, i) => row(i + 1));
    hold(rows, bodies(rows));
    expect(recentHeld()!.rows).toHaveLength(MAX_RECENT);
    expect(recentHeld()!.from).toBe(10);
    expect(recentHeld()!.bodies.has('d10')).toBe(false);
    expect(recentHeld()!.bodies.has('d11')).toBe(true);
    expect(heldAfter(9, MAX_RECENT + 10)).toBeNull();
    expect(heldAfter(10, MAX_RECENT + 10)).toHaveLength(MAX_RECENT);
  });

  it('builds each event once per content withheld, and serves a stream from memory without the store', async () => {
    startHolding(0);
    const rows = [row(1), row(2, 'WTA'), row(3)];
    hold(rows, bodies(rows));
    expect(builtEvent(rows[0]!, scope, recentHeld()!.bodies, '')).toBe(builtEvent(rows[0]!, scope, new Map(), ''));
    expect(builtEvent(rows[0]!, scope, recentHeld()!.bodies, 'odds')).not.toBe(builtEvent(rows[0]!, scope, recentHeld()!.bodies, ''));
    const noStore = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the store was asked');
        },
      },
    ) as never;
    const read = await readEventsAfter(noStore, { ...scope, leagues: ['ATP'] }, 0, 10, 'h0', { heldUpTo: 3 });
    expect(read.events.map((e) => e.seq)).toEqual([1, 3]);
    expect(read.scanned).toBe(3);
    expect(read.events[0]!.prev).toBe('h0');
    expect(read.events[1]!.prev).toBe(read.events[0]!.hash);
    expect(JSON.parse(read.json[1]!)).toEqual(read.events[1]);
  });
});
