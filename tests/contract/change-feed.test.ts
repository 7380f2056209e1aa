import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce, startFeedLoop, windowAt, type FeedSettings, type WalkPicks } from '@/lib/changes/poller';
import { AppError } from '@/lib/errors';
import { createPicksClient } from '@/lib/picks-api/client';
import { claimFeedLease, readFeed } from '@/lib/store/change-feed';
import { applyPoll, LeaseLost, readChanges, readWatched } from '@/lib/store/changes';
import { openStore, type Store } from '@/lib/store/open';
import { lifecycleAt, type SeedRecord } from '@/sandbox/data';
import { inLicence } from '@/sandbox/scope';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';

/**
 * The change feed against the sandbox over real HTTP, on both store engines. The sandbox's clock is moved
 * by the test (its test-only controls), and the entries the feed lists are compared with what the
 * sandbox's own lifecycle says happened between the two instants: the exact ids and kinds, nothing else.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const settings: FeedSettings = { daysBack: 7, daysAhead: 14, pollMs: 300_000 };
let sandbox: Sandbox;
let baseUrl: string;

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 8000 });
  baseUrl = await sandbox.listen(0);
});
afterAll(() => sandbox.close());

const client = (fetchImpl?: typeof fetch) =>
  createPicksClient({ baseUrl, apiKey: KEY, retry: { maxRetries: 0 }, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
const walkOf =
  (fetchImpl?: typeof fetch): WalkPicks =>
  (filters, call) =>
    client(fetchImpl).walkPicks(filters, call);

/** The sandbox's truth at `t`: every record the full licence delivers in the feed's window, with its lifecycle. */
function truth(t: number) {
  const licence = sandbox.licences.find((l) => l.key === KEY)!;
  const window = windowAt(t, settings);
  const out = new Map<string, { record: SeedRecord; status: string; result: string | null; publishedAt: string }>();
  for (const record of sandbox.records) {
    const life = lifecycleAt(record, t);
    if (record.eventMs < window.fromMs || record.eventMs >= window.toMs || !life.published) continue;
    if (!inLicence(licence, record, sandbox.anchorMs) || sandbox.controls.retracted.has(record.id)) continue;
    out.set(record.id, { record, status: life.status, result: life.result, publishedAt: life.publishedAt });
  }
  return out;
}

/** What the feed must list between two instants (no edits or retractions): id → kinds. */
function expectedBetween(t1: number, t2: number): Map<string, string> {
  const before = truth(t1);
  const after = truth(t2);
  const previousWindow = windowAt(t1, settings);
  const expected = new Map<string, string>();
  for (const [id, now] of after) {
    const was = before.get(id);
    if (!was) {
      if (now.record.eventMs >= previousWindow.fromMs && now.record.eventMs < previousWindow.toMs) expected.set(id, 'new');
      continue;
    }
    const kinds = [was.status !== now.status && 'status', was.result !== now.result && 'result'].filter(Boolean);
    if (kinds.length === 0 && was.publishedAt !== now.publishedAt) kinds.push('updated');
    if (kinds.length > 0) expected.set(id, kinds.join(' '));
  }
  return expected;
}

const listed = async (store: Store, since = '') => {
  const out = new Map<string, string>();
  for await (const change of readChanges(store.db, since ? { since } : {})) out.set(change.id, change.kinds.join(' '));
  return out;
};

describe.each(storeEngines())('the change feed on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    sandbox.controls.setNow(T0);
    sandbox.controls.retracted.clear();
    sandbox.controls.edits.clear();
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  async function fresh(instance = 'a') {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    // A lease of 30 days: the sandbox clock jumps hours ahead between polls.
    expect(await claimFeedLease(store.db, instance, 30 * 86_400_000, T0)).toBe(true);
    return store;
  }
  const poll = (store: Store, walk = walkOf(), instance = 'a') =>
    pollOnce({ db: store.db, walk, instance, settings, now: () => sandbox.controls.now() });

  it('lists nothing for the baseline, then exactly what the clock changed', async () => {
    const store = await fresh();
    const baseline = await poll(store);
    expect(baseline).toMatchObject({ outcome: 'complete', entries: 0, baseline: true, watched: truth(T0).size });
    expect((await readWatched(store.db)).size).toBe(truth(T0).size);

    const t1 = T0 + 6 * 3_600_000;
    sandbox.controls.setNow(t1);
    const second = await poll(store);
    const expected = expectedBetween(T0, t1);
    // Enough of each kind that the comparison means something.
    const kinds = [...expected.values()];
    expect(kinds.filter((k) => k === 'new').length).toBeGreaterThan(3);
    expect(kinds.filter((k) => k === 'status').length).toBeGreaterThan(3);
    expect(kinds.filter((k) => k === 'status result').length).toBeGreaterThan(3);
    expect(second).toMatchObject({ outcome: 'complete', entries: expected.size, baseline: false });
    expect(await listed(store)).toEqual(expected);

    // A poll with nothing changed lists nothing and rewrites nothing.
    const third = await poll(store);
    expect(third).toMatchObject({ outcome: 'complete', entries: 0 });
    const state = await readFeed(store.db);
    expect(state).toMatchObject({ polls: 3, outcome: 'complete', error: null, watched: truth(t1).size, polledBy: 'a' });
  });

  it('sees retractions, returns and edits as withdrawn, restored and updated, with before and after', async () => {
    const store = await fresh();
    await poll(store);
    const current = [...truth(T0).values()];
    const upcoming = current.filter((r) => r.status === 'upcoming');
    const [gone, edited, back] = [upcoming[0]!.record, upcoming[1]!.record, upcoming[2]!.record];
    sandbox.controls.retracted.add(gone.id).add(back.id);
    sandbox.controls.setNow(T0 + 60_000);
    sandbox.controls.edits.set(edited.id, { fields: { odds: 9.99, reasoning: 'Revised.' }, atMs: T0 + 60_000 });
    await poll(store);
    const changes = [];
    for await (const change of readChanges(store.db)) changes.push(change);
    const byId = new Map(changes.map((c) => [c.id, c]));
    expect(byId.get(gone.id)).toMatchObject({
      kinds: ['withdrawn'],
      before: { status: 'upcoming', result: null },
      after: null,
      display: { sport: gone.league.sport, league: gone.league.league, homeTeam: gone.body.homeTeam, eventDate: gone.body.eventDate },
    });
    expect(byId.get(edited.id)).toMatchObject({
      kinds: ['updated'],
      before: { status: 'upcoming' },
      after: { status: 'upcoming', publishedAt: new Date(T0 + 60_000).toISOString() },
    });
    expect(byId.get(back.id)?.kinds).toEqual(['withdrawn']);
    expect(changes.map((c) => c.id).sort()).toEqual([gone.id, edited.id, back.id].sort());

    sandbox.controls.retracted.delete(back.id);
    const since = changes.at(-1)!.detectedAt;
    sandbox.controls.setNow(T0 + 120_000);
    await poll(store);
    expect(await listed(store, since)).toEqual(new Map([[back.id, 'restored']]));
  });

  it('records nothing from a walk broken mid-way, says why, and starts over at the next poll', async () => {
    const store = await fresh();
    await poll(store);
    const t1 = T0 + 6 * 3_600_000;
    sandbox.controls.setNow(t1);
    let pages = 0;
    const breaking: typeof fetch = async (input, init) => {
      pages += 1;
      if (pages === 4) return new Response('{"error":{"code":"DOWN","message":"Gateway down.","requestId":"req_x"}}', { status: 503 });
      return fetch(input, init);
    };
    const broken = await poll(store, walkOf(breaking));
    expect(broken).toMatchObject({ outcome: 'failed', requests: 4 });
    expect(await listed(store)).toEqual(new Map());
    expect((await readWatched(store.db)).size).toBe(truth(T0).size);
    const state = await readFeed(store.db);
    expect(state.outcome).toBe('failed');
    expect(state.error).toMatch(/^UPSTREAM_/);
    expect(state.polls).toBe(1);

    const again = await poll(store);
    expect(again).toMatchObject({ outcome: 'complete' });
    expect(await listed(store)).toEqual(expectedBetween(T0, t1));
  });

  it('lets exactly one instance poll, and fences out one that lost its lease', async () => {
    const store = await fresh('a');
    expect(await claimFeedLease(store.db, 'b', 600_000, T0 + 600_000)).toBe(false);
    expect(await poll(store, walkOf(), 'b')).toEqual({ outcome: 'not-holder' });
    expect((await readFeed(store.db)).polls).toBe(0);
    // a's lease runs out: b takes it, and a's late apply is refused whole.
    expect(await claimFeedLease(store.db, 'b', 600_000, T0 + 31 * 86_400_000)).toBe(true);
    const plan = { entries: [{ id: 'x', kinds: ['new' as const], display: {}, before: null, after: null }], upserts: [], removals: [] };
    await expect(
      applyPoll(store.db, plan, { instance: 'a', now: T0 + 31 * 86_400_000 + 1, window: { from: 'a', to: 'b' }, watched: 0, requests: 0 }),
    ).rejects.toBeInstanceOf(LeaseLost);
    expect(await listed(store)).toEqual(new Map());
  });

  it('polls once per period with two loops on one store, and the survivor takes over when the holder stops', async () => {
    const store = await fresh('nobody');
    await store.db.updateTable('change_feed').set({ holder: null, lease_expires: 0 }).execute();
    let requests = 0;
    const counting: WalkPicks = (filters, call) =>
      client().walkPicks(filters, { ...call, onRequest: () => ((requests += 1), call.onRequest?.()) });
    const fast = { ...settings, pollMs: 2_000 };
    const loops = ['a', 'b'].map((instance) => startFeedLoop({ db: store.db, walk: counting, instance, settings: fast }, () => undefined));
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    // A poll still walking has made requests but not yet counted itself: wait for both loops to rest.
    await Promise.all(loops.map((loop) => loop.idle()));
    const made = requests;
    const state = await readFeed(store.db);
    // 5 s at one poll per 2 s: three polls by one holder, never one per loop.
    expect(state.polls).toBeGreaterThanOrEqual(2);
    expect(state.polls).toBeLessThanOrEqual(3);
    const holder = state.holder!;
    const perPoll = made / state.polls;
    expect(Number.isInteger(perPoll)).toBe(true);
    const [first, second] = holder === 'a' ? loops : [loops[1]!, loops[0]!];
    await first!.stop();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = await readFeed(store.db);
    expect(after.holder).not.toBe(holder);
    expect(after.polledBy).not.toBe(holder);
    expect(after.polls).toBeGreaterThan(state.polls);
    await second!.stop();
  });

  it('"Poll now" names a time the poll that answers reaches: started, running, and asked of the holder', async () => {
    const store = await fresh('a');
    const slow = { ...settings, pollMs: 3_600_000 };
    const loop = startFeedLoop({ db: store.db, walk: walkOf(), instance: 'a', settings: slow }, () => undefined);
    try {
      await loop.idle();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await loop.idle();
      const before = Date.now();
      const started = await loop.pollNow();
      expect(started.poll).toBe('started');
      expect(started.sinceMs).toBeGreaterThanOrEqual(before);
      const running = await loop.pollNow();
      expect(running).toEqual({ poll: 'running', sinceMs: started.sinceMs });
      await loop.idle();
      // The complete time is the poll's start: the page's "ended" test is completeMs >= sinceMs.
      expect((await readFeed(store.db)).completeMs).toBeGreaterThanOrEqual(started.sinceMs);
    } finally {
      await loop.stop();
    }
    expect(await claimFeedLease(store.db, 'a', 3_600_000)).toBe(true);
    const other = startFeedLoop({ db: store.db, walk: walkOf(), instance: 'b', settings: slow }, () => undefined);
    try {
      const asked = await other.pollNow();
      expect(asked.poll).toBe('requested');
      expect((await readFeed(store.db)).requestedMs).toBe(asked.sinceMs);
    } finally {
      await other.stop();
    }
  });
});

it('reports an upstream that refuses the walk as a failed poll with its code', async () => {
  const engine = storeEngines()[0]!;
  const store = await openStore(await engine.fresh());
  try {
    await claimFeedLease(store.db, 'a', 30 * 86_400_000, T0);
    const refusing: WalkPicks = () => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(new AppError({ code: 'UPSTREAM_UNAUTHORIZED', message: 'No licence.' })),
      }),
    });
    const result = await pollOnce({ db: store.db, walk: refusing, instance: 'a', settings, now: () => T0 });
    expect(result).toMatchObject({ outcome: 'failed', error: 'UPSTREAM_UNAUTHORIZED: No licence.' });
  } finally {
    await store.close();
  }
});
