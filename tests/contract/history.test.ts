import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce, windowAt, type FeedSettings } from '@/lib/changes/poller';
import { historyOf } from '@/lib/history/diff';
import { eachDifference, type Difference } from '@/lib/history/moments';
import { canonicalJson } from '@/lib/vocabulary/version';
import { createPicksClient } from '@/lib/picks-api/client';
import { claimFeedLease } from '@/lib/store/change-feed';
import { eachVersionAt } from '@/lib/store/history-at';
import { readRecordHistory } from '@/lib/store/history-read';
import { openStore, type Store } from '@/lib/store/open';
import { lifecycleAt, SETTLE_DELAY_MS } from '@/sandbox/data';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';

/**
 * Record history from real polls of the sandbox over HTTP, on both store engines. The sandbox's clock and edit
 * hooks move its world; after each poll the test walks the sandbox itself at that moment, so the set the
 * history gives for each moment is checked record for record against what the sandbox served then, and the
 * difference between two moments against those two walks.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const settings: FeedSettings = { daysBack: 2, daysAhead: 3, pollMs: 300_000 };
const MIN = 60_000;
let sandbox: Sandbox;
let baseUrl: string;

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 });
  baseUrl = await sandbox.listen(0);
});
afterAll(() => sandbox.close());

const client = () => createPicksClient({ baseUrl, apiKey: KEY, retry: { maxRetries: 0 } });

/** What the sandbox serves at its current clock in the feed's window: id → canonical body. */
async function servedNow(): Promise<Map<string, string>> {
  const window = windowAt(sandbox.controls.now(), settings);
  const served = new Map<string, string>();
  for await (const record of client().walkPicks({ from: window.from, to: window.to })) served.set(record.id!, canonicalJson(record));
  return served;
}

async function setAt(store: Store, atMs: number): Promise<Map<string, string>> {
  const window = windowAt(atMs, settings);
  const out = new Map<string, string>();
  for await (const batch of eachVersionAt(store.db, atMs, { from: window.from, to: window.to }))
    for (const v of batch) out.set(v.pickId, v.body);
  return out;
}

describe.each(storeEngines())('record history from polls on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    sandbox.controls.setNow(T0);
    sandbox.controls.retracted.clear();
    sandbox.controls.edits.clear();
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('keeps every version a poll sees: one record through live, settled, a corrected result, withdrawn and restored; sets and differences exact', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    expect(await claimFeedLease(store.db, 'a', 30 * 86_400_000, T0)).toBe(true);
    const poll = async (at: number) => {
      sandbox.controls.setNow(at);
      const result = await pollOnce({
        db: store.db,
        walk: (f, call) => client().walkPicks(f, call),
        instance: 'a',
        settings,
        now: () => at,
      });
      expect(result.outcome).toBe('complete');
      return servedNow();
    };
    // A record whose event starts within the hour: upcoming now, live at its start, settled after its end.
    const record = sandbox.records.find(
      (r) => r.eventMs > T0 + 10 * MIN && r.eventMs < T0 + 2 * 3_600_000 && r.voidAtMs === null && lifecycleAt(r, T0).published,
    )!;
    const others = sandbox.records
      .filter((r) => r.id !== record.id && r.endMs + SETTLE_DELAY_MS < T0 && r.eventMs > T0 - 86_400_000 && r.voidAtMs === null)
      .slice(0, 2);
    expect(record && others.length === 2).toBe(true);

    const moments: number[] = [];
    const served: Map<string, string>[] = [];
    const step = async (at: number, change: () => void = () => undefined) => {
      change();
      moments.push(at);
      served.push(await poll(at));
    };
    const settled = record.endMs + SETTLE_DELAY_MS;
    const flipped = record.outcome === 'win' ? 'loss' : 'win';
    await step(T0);
    await step(record.eventMs + MIN);
    await step(settled + MIN);
    await step(settled + 2 * MIN, () => {
      for (const r of [record, ...others])
        sandbox.controls.edits.set(r.id, { fields: { result: r.outcome === 'win' ? 'loss' : 'win' }, atMs: settled + 2 * MIN });
    });
    await step(settled + 3 * MIN, () => sandbox.controls.retracted.add(record.id));
    await step(settled + 4 * MIN, () => sandbox.controls.retracted.delete(record.id));

    const entries = historyOf(await readRecordHistory(store.db, record.id));
    expect(entries.map((e) => e.kind)).toEqual(['first', 'changed', 'changed', 'changed', 'withdrawn', 'restored']);
    expect(entries.map((e) => e.firstSeen)).toEqual(moments.map((ms) => new Date(ms).toISOString()));
    const at = (ms: number) => new Date(ms).toISOString();
    expect(entries[1]!.changes).toEqual([
      { field: 'publishedAt', before: lifecycleAt(record, T0).publishedAt, after: at(record.eventMs) },
      { field: 'status', before: 'upcoming', after: 'live' },
    ]);
    expect(entries[2]!.changes).toEqual([
      { field: 'publishedAt', before: at(record.eventMs), after: at(settled) },
      { field: 'result', before: null, after: record.outcome },
      { field: 'settledAt', before: null, after: at(settled) },
      { field: 'status', before: 'live', after: 'settled' },
    ]);
    expect(entries[3]!.changes).toEqual([
      { field: 'publishedAt', before: at(settled), after: at(settled + 2 * MIN) },
      { field: 'result', before: record.outcome, after: flipped },
    ]);
    expect(entries[5]).toMatchObject({ digest: entries[3]!.digest, changes: [] });

    // The set at each moment is, record for record, what the sandbox served then.
    for (const [k, moment] of moments.entries()) expect(await setAt(store, moment)).toEqual(served[k]);
    // Between two moments too: a minute before the corrections to a minute after.
    const differences: Difference[] = [];
    for await (const d of eachDifference(store.db, { fromMs: moments[2]!, toMs: moments[3]! }, {})) differences.push(d);
    const seenBefore = new Set(served.slice(0, 3).flatMap((s) => [...s.keys()]));
    const expected = new Map<string, string>();
    for (const [id, body] of served[3]!) {
      if (!seenBefore.has(id)) expected.set(id, 'added');
      else if (served[2]!.has(id) && served[2]!.get(id) !== body) expected.set(id, 'changed');
    }
    expect(new Map(differences.map((d) => [d.id, d.change]))).toEqual(expected);
    for (const r of others) expect(differences.find((d) => d.id === r.id)?.fields.map((f) => f.field)).toEqual(['publishedAt', 'result']);
    // Withdrawn and restored as it was: no difference across both; withdrawn across the first.
    const across = async (from: number, to: number) => {
      const out: Difference[] = [];
      for await (const d of eachDifference(store.db, { fromMs: from, toMs: to }, { sport: record.league.sport }))
        if (d.id === record.id) out.push(d);
      return out;
    };
    expect(await across(moments[3]!, moments[5]!)).toEqual([]);
    expect((await across(moments[3]!, moments[4]!)).map((d) => d.change)).toEqual(['withdrawn']);
  });
});
