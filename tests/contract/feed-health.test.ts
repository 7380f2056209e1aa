import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce, type FeedSettings } from '@/lib/changes/poller';
import { sportsHealth } from '@/lib/feed-health';
import { createPicksClient } from '@/lib/picks-api/client';
import { summariseLicence } from '@/lib/picks-api/licence';
import { claimFeedLease } from '@/lib/store/change-feed';
import { licenceChanges, setCadences, stateHistory } from '@/lib/store/feed-health';
import { openStore, type Store } from '@/lib/store/open';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';

/**
 * Feed health against the sandbox over real HTTP, on both store engines: polls with the full key, a refused
 * key and the full key again; the football-only key as a licence that lost sports; an agreed cadence the
 * feed is silent beyond. Each gives the state, side and reason expected, and each change of state is logged once.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const settings: FeedSettings = { daysBack: 2, daysAhead: 3, pollMs: 300_000 };
let sandbox: Sandbox;
let baseUrl: string;

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 });
  baseUrl = await sandbox.listen(0);
});
afterAll(() => sandbox.close());

const client = (apiKey: string) => createPicksClient({ baseUrl, apiKey, retry: { maxRetries: 0 } });
const licenceOf = async (key: string) => summariseLicence(await client(key).me());

describe.each(storeEngines())('feed health on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  async function poll(store: Store, key: string, at: number) {
    await claimFeedLease(store.db, 'test', settings.pollMs * 2, at);
    return pollOnce({
      db: store.db,
      instance: 'test',
      settings,
      now: () => at,
      walk: (filters, call) => client(key).walkPicks(filters, call),
    });
  }

  it('healthy, then the licence’s side when the key is refused, then healthy again: each change logged once', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const full = await licenceOf('sandbox-full-key');
    const judge = (at: number) => sportsHealth(store.db, settings.pollMs, { record: true, now: at, licence: full });

    expect((await poll(store, 'sandbox-full-key', T0)).outcome).toBe('complete');
    const first = await judge(T0);
    expect(first.length).toBeGreaterThan(3);
    expect(first.filter((s) => s.state !== 'healthy').map((s) => `${s.sport}: ${s.reason}`)).toEqual([]);
    expect(first.every((s) => s.since === new Date(T0).toISOString())).toBe(true);

    expect((await poll(store, 'e2e-refused-key', T0 + 60_000)).outcome).toBe('failed');
    const refused = await judge(T0 + 60_000);
    expect(new Set(refused.map((s) => `${s.state} ${s.side} ${s.reason}`))).toEqual(
      new Set(['down licence The Picks API refused the partner key (401)']),
    );
    // Judged again without a change: nothing more is logged, and `since` stays.
    expect((await judge(T0 + 90_000)).every((s) => s.since === new Date(T0 + 60_000).toISOString())).toBe(true);

    expect((await poll(store, 'sandbox-full-key', T0 + 120_000)).outcome).toBe('complete');
    expect((await judge(T0 + 120_000)).every((s) => s.state === 'healthy')).toBe(true);
    const football = (await stateHistory(store.db, 0)).filter((e) => e.sport === 'Football');
    expect(football.map((e) => [e.state, e.side, e.at])).toEqual([
      ['healthy', null, T0],
      ['down', 'licence', T0 + 60_000],
      ['healthy', null, T0 + 120_000],
    ]);
  });

  it('a licence that loses sports is a logged change of scope, and those sports are down on the licence’s side', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    await poll(store, 'sandbox-full-key', T0);
    await sportsHealth(store.db, settings.pollMs, { record: true, now: T0, licence: await licenceOf('sandbox-full-key') });
    const footballOnly = await licenceOf('sandbox-football-key');
    const after = await sportsHealth(store.db, settings.pollMs, { record: true, now: T0 + 60_000, licence: footballOnly });
    expect(after.find((s) => s.sport === 'Football')).toMatchObject({ state: 'healthy' });
    expect(after.find((s) => s.sport === 'Tennis')).toMatchObject({
      state: 'down',
      side: 'licence',
      reason: 'The licence no longer lists this sport',
    });
    const [change, ...more] = await licenceChanges(store.db, 0);
    expect(more).toEqual([]);
    expect(change!.at).toBe(T0 + 60_000);
    expect(change!.after.sports).toEqual(['Football']);
    expect(change!.before.sports).toContain('Tennis');
  });

  it('a sport lost from the licence is down on its side even when the feed never held a record of it', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    await poll(store, 'sandbox-full-key', T0);
    const full = (await licenceOf('sandbox-full-key'))!;
    const withCurling = { ...full, sports: [...(full.sports ?? []), 'Curling'] };
    await sportsHealth(store.db, settings.pollMs, { record: true, now: T0, licence: withCurling });
    expect((await sportsHealth(store.db, settings.pollMs, { now: T0, licence: withCurling })).map((s) => s.sport)).not.toContain('Curling');
    await sportsHealth(store.db, settings.pollMs, { record: true, now: T0 + 60_000, licence: full });
    const after = await sportsHealth(store.db, settings.pollMs, { now: T0 + 90_000, licence: full });
    expect(after.find((s) => s.sport === 'Curling')).toMatchObject({
      state: 'down',
      side: 'licence',
      reason: 'The licence no longer lists this sport',
      watched: 0,
    });
  });

  it('silence beyond the cadence agreed for a sport: degraded, then down beyond three times it', async () => {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    const full = await licenceOf('sandbox-full-key');
    await poll(store, 'sandbox-full-key', T0);
    const later = T0 + 6 * 3_600_000;
    sandbox.controls.setNow(later);
    await poll(store, 'sandbox-full-key', later); // six hours on: events start and settle, picks publish
    sandbox.controls.setNow(T0);
    await setCadences(store.db, { Football: 1800 }, 'admin@example.com');
    // Judged as if the feed were polled hourly, so the hours after the last poll are not yet the portal's fault.
    const at = async (ms: number) =>
      (await sportsHealth(store.db, 3_600_000, { now: ms, licence: full })).find((s) => s.sport === 'Football')!;
    const seen = await at(later);
    expect(seen.state).toBe('healthy');
    expect(Date.parse(seen.lastChangeAt!)).toBe(later);
    expect(await at(later + 45 * 60_000)).toMatchObject({
      state: 'degraded',
      side: 'upstream',
      reason: 'No new or changed record for 45 min; the agreed cadence is 30 min',
    });
    expect(await at(later + 2 * 3_600_000)).toMatchObject({ state: 'down', side: 'upstream' });
  });
});
