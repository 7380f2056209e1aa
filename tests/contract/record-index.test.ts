import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce, type FeedSettings } from '@/lib/changes/poller';
import { createPicksClient } from '@/lib/picks-api/client';
import { followContentMode, keepIndex, rebuildIndex } from '@/lib/records/index-keeper';
import { claimFeedLease } from '@/lib/store/change-feed';
import { openStore, type Store } from '@/lib/store/open';
import { foldWords, indexedBodies, indexedOf, putIndexed } from '@/lib/store/record-index';
import { facetCounts, searchIndexed, type IndexQuery } from '@/lib/store/record-search';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';

/**
 * The index of the licensed set on both store engines, kept by the change feed's polls of the sandbox over real
 * HTTP: a record published, changed and withdrawn upstream is found, updated and gone after the next poll; a sport
 * the licence no longer holds is never answered; a rebuild gives the same index; parts of words, case and accents
 * match; the whole set sorts by a column and pages by number without a record twice or left out.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const settings: FeedSettings = { daysBack: 7, daysAhead: 14, pollMs: 300_000 };
let sandbox: Sandbox;
let baseUrl: string;
const everything: IndexQuery['allowed'] = { sports: null, leagues: null, fromMs: null, toMs: null };
const query = (q: Partial<IndexQuery> = {}): IndexQuery => ({
  words: [],
  allowed: everything,
  sort: { by: 'eventDate', dir: 'desc' },
  offset: 0,
  limit: 100_000,
  ...q,
});

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 3000 });
  baseUrl = await sandbox.listen(0);
});
afterAll(() => sandbox.close());

describe.each(storeEngines())('the index of the licensed set on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    sandbox.controls.setNow(T0);
    sandbox.controls.retracted.clear();
    sandbox.controls.edits.clear();
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  async function polled(key = KEY) {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    expect(await claimFeedLease(store.db, 'a', 30 * 86_400_000, T0)).toBe(true);
    let keyNow = key;
    const poll = async (next = keyNow) => {
      keyNow = next;
      await pollOnce({
        db: store.db,
        walk: (f, call) => createPicksClient({ baseUrl, apiKey: keyNow, retry: { maxRetries: 0 } }).walkPicks(f, call),
        instance: 'a',
        settings,
        now: () => sandbox.controls.now(),
      });
      await keepIndex(store.db);
    };
    await poll();
    return { store, poll };
  }

  it('follows the polls: a record published, changed and withdrawn upstream is found, updated and gone', async () => {
    const { store, poll } = await polled();
    const all = await searchIndexed(store.db, query());
    expect(all.total).toBeGreaterThan(100);
    expect(new Set(all.hits.map((h) => h.pickId)).size).toBe(all.total);
    const [edited, gone] = all.hits;
    sandbox.controls.retracted.add(gone!.pickId);
    sandbox.controls.setNow(T0 + 60_000);
    sandbox.controls.edits.set(edited!.pickId, { fields: { homeTeam: 'Kingston City FC', odds: 9.99 }, atMs: T0 + 60_000 });
    await poll();
    const found = await searchIndexed(store.db, query({ words: ['kingston', 'city'], sort: { by: 'relevance', dir: 'desc' } }));
    expect(found.hits.map((h) => h.pickId)).toEqual([edited!.pickId]);
    expect((await searchIndexed(store.db, query())).hits.map((h) => h.pickId)).not.toContain(gone!.pickId);
    // What the sandbox publishes later is found after the poll that sees it.
    sandbox.controls.setNow(T0 + 12 * 3_600_000);
    await poll();
    expect((await searchIndexed(store.db, query())).total).toBeGreaterThan(all.total - 1);
  });

  it('matches parts of words, any case and accents; answers only the licence in force; rebuilds the same', async () => {
    const { store, poll } = await polled();
    const [one] = (await searchIndexed(store.db, query({ limit: 1 }))).hits;
    sandbox.controls.setNow(T0 + 60_000);
    sandbox.controls.edits.set(one!.pickId, { fields: { awayTeam: 'Zürichsee Ñandú Wanderers' }, atMs: T0 + 60_000 });
    await poll();
    for (const typed of ['zurichsee', 'ZÜRICHSEE', 'richse nandu', 'Ñandú wand'])
      expect(
        (await searchIndexed(store.db, query({ words: foldWords(typed).split(' ') }))).hits.map((h) => h.pickId),
        typed,
      ).toEqual([one!.pickId]);
    const all = await searchIndexed(store.db, query());
    const sports = [...new Set((await store.db.selectFrom('record_index').select('sport').execute()).map((r) => r.sport!))];
    expect(sports.length).toBeGreaterThan(1);
    const narrowed = await searchIndexed(store.db, query({ allowed: { ...everything, sports: sports.slice(1) } }));
    expect(narrowed.total).toBeLessThan(all.total);
    const dropped = await store.db.selectFrom('record_index').select('pick_id').where('sport', '=', sports[0]!).execute();
    expect(narrowed.hits.map((h) => h.pickId)).not.toContain(dropped[0]!.pick_id);
    expect((await searchIndexed(store.db, query({ allowed: { ...everything, sports: [] } }))).total).toBe(0);
    const before = await store.db.selectFrom('record_index').selectAll().orderBy('pick_id').execute();
    await rebuildIndex(store.db);
    expect(await store.db.selectFrom('record_index').selectAll().orderBy('pick_id').execute()).toEqual(before);
    expect((await searchIndexed(store.db, query({ words: ['zurichsee'] }))).hits.map((h) => h.pickId)).toEqual([one!.pickId]);
  });

  it('starts over when the content mode changes: no search or sort answers from a field the mode now withholds', async () => {
    const { store, poll } = await polled();
    expect(await followContentMode(store.db, 'full')).toBeNull();
    const valued = () => store.db.selectFrom('record_index').select('pick_id').where('probability', 'is not', null).execute();
    const before = (await valued()).length;
    expect(before).toBeGreaterThan(100);
    // A record older than the polls watch, put in the index by a walk under the old mode: no poll reads it again.
    const [one] = (await searchIndexed(store.db, query({ limit: 1 }))).hits;
    const body = JSON.stringify({
      ...JSON.parse((await indexedBodies(store.db, [one!.digest])).get(one!.digest)!),
      id: 'older-1',
      eventDate: '2026-09-01T12:00:00Z',
    });
    await putIndexed(store.db, [indexedOf('older-1', 'older-digest', body)]);
    expect((await valued()).map((r) => r.pick_id)).toContain('older-1');
    // The licence now withholds probability, reasoning and tier (the sandbox's reduced key answers as such a licence).
    const startedOver = await followContentMode(store.db, 'reduced');
    expect(startedOver).toEqual(expect.any(Number));
    expect((await searchIndexed(store.db, query())).total).toBe(0);
    await poll('sandbox-reduced-key');
    const after = await searchIndexed(store.db, query({ sort: { by: 'probability', dir: 'desc' } }));
    expect(after.total).toBeGreaterThan(100);
    expect(await valued()).toEqual([]);
    // A rebuild follows the history from the change on, not the bodies read under the old mode.
    await rebuildIndex(store.db);
    expect((await searchIndexed(store.db, query())).total).toBe(after.total);
    expect(await valued()).toEqual([]);
    expect(await followContentMode(store.db, 'reduced')).toBe(startedOver);
  });

  it('counts each filter’s values in the current set, the filter’s own choice set aside (facets)', async () => {
    const { store } = await polled();
    const where = { words: [], allowed: everything };
    const total = (await searchIndexed(store.db, query())).total;
    const sports = await facetCounts(store.db, where, 'sport', 50);
    expect(sports.length).toBeGreaterThan(1);
    expect(sports.reduce((sum, s) => sum + s.count, 0)).toBe(total);
    for (let i = 1; i < sports.length; i += 1) expect(sports[i]!.count).toBeLessThanOrEqual(sports[i - 1]!.count);
    const [top, other] = sports;
    // With a sport chosen, the sport facet still offers the others; the league facet counts within the chosen sport.
    expect(await facetCounts(store.db, { ...where, sport: top!.value }, 'sport', 50)).toEqual(sports);
    const leagues = await facetCounts(store.db, { ...where, sport: other!.value }, 'league', 50);
    expect(leagues.reduce((sum, l) => sum + l.count, 0)).toBe(other!.count);
    for (const { value, count } of leagues)
      expect((await searchIndexed(store.db, query({ sport: other!.value, league: value }))).total).toBe(count);
    // The licence in force holds: a sport it no longer covers is not counted.
    expect(
      (await facetCounts(store.db, { words: [], allowed: { ...everything, sports: [other!.value] } }, 'sport', 50)).map((s) => s.value),
    ).toEqual([other!.value]);
  });

  it('sorts the whole set by a column both ways, and pages by number without a record twice or left out', async () => {
    const { store } = await polled();
    const up = (await searchIndexed(store.db, query({ sort: { by: 'eventDate', dir: 'asc' } }))).hits.map((h) => h.pickId);
    const times = await store.db.selectFrom('record_index').select(['pick_id', 'event_ms']).execute();
    const when = new Map(times.map((t) => [t.pick_id, Number(t.event_ms)]));
    const earliest = Math.min(...times.map((t) => Number(t.event_ms)));
    expect(when.get(up[0]!)).toBe(earliest);
    for (let i = 1; i < up.length; i += 1) expect(when.get(up[i]!)!).toBeGreaterThanOrEqual(when.get(up[i - 1]!)!);
    const paged: string[] = [];
    for (let page = 0; page * 37 < up.length; page += 1)
      paged.push(
        ...(await searchIndexed(store.db, query({ sort: { by: 'eventDate', dir: 'asc' }, offset: page * 37, limit: 37 }))).hits.map(
          (h) => h.pickId,
        ),
      );
    expect(paged).toEqual(up);
    // Records without odds come last, whichever the direction, and pages of 37 cross from those with to those without.
    // Three records without odds (as a record may come: every field can be absent, spec §2.2).
    await store.db.updateTable('record_index').set({ odds: null }).where('pick_id', 'in', up.slice(0, 3)).execute();
    const nulls = (await store.db.selectFrom('record_index').select('pick_id').where('odds', 'is', null).execute()).map((r) => r.pick_id);
    expect(nulls).toEqual(expect.arrayContaining(up.slice(0, 3)));
    for (const dir of ['asc', 'desc'] as const) {
      const whole = (await searchIndexed(store.db, query({ sort: { by: 'odds', dir } }))).hits.map((h) => h.pickId);
      expect(whole.slice(-nulls.length).sort()).toEqual([...nulls].sort());
      const pages: string[] = [];
      for (let page = 0; page * 37 < whole.length; page += 1)
        pages.push(
          ...(await searchIndexed(store.db, query({ sort: { by: 'odds', dir }, offset: page * 37, limit: 37 }))).hits.map((h) => h.pickId),
        );
      expect(pages).toEqual(whole);
    }
    const odds = (await searchIndexed(store.db, query({ sort: { by: 'odds', dir: 'desc' }, limit: 20 }))).hits.map((h) => h.pickId);
    const oddsOf = new Map(
      (await store.db.selectFrom('record_index').select(['pick_id', 'odds']).execute()).map((r) => [r.pick_id, r.odds]),
    );
    for (let i = 1; i < odds.length; i += 1)
      expect(Number(oddsOf.get(odds[i]!) ?? -1)).toBeLessThanOrEqual(Number(oddsOf.get(odds[i - 1]!)));
  });
});
