import { afterEach, describe, expect, it } from 'vitest';
import { parseChangeQuery } from '@/lib/changes/query';
import type { ChangeEntry } from '@/lib/changes/reconcile';
import { claimFeedLease, currentVisit, readFeed, recordVisit, VISIT_GAP_MS } from '@/lib/store/change-feed';
import { applyPoll, countChanges, latestChanges, pruneChanges, readChanges } from '@/lib/store/changes';
import { openStore, type Store } from '@/lib/store/open';
import { storeEngines } from '../support/store-engines';

/** The change feed's store on both engines: filters, counts, paging, retention, visits, the lease. */

const T = Date.parse('2026-11-20T12:00:00Z');
const entry = (id: string, kinds: ChangeEntry['kinds'], sport = 'Football', league = 'Serie A'): ChangeEntry => ({
  id,
  kinds,
  display: { sport, league, homeTeam: 'Etna Calcio', awayTeam: 'Bergamo Nord FC' },
  before: kinds.includes('new') ? null : { status: 'live', result: null, publishedAt: '2026-11-20T10:00:00.000Z' },
  after: kinds.includes('withdrawn') ? null : { status: 'settled', result: 'win', publishedAt: '2026-11-20T11:00:00.000Z' },
});

describe.each(storeEngines())('the change store on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  async function fresh() {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    await claimFeedLease(store.db, 'a', 30 * 86_400_000, T);
    return store;
  }
  const apply = (store: Store, at: number, entries: ChangeEntry[]) =>
    applyPoll(
      store.db,
      { entries, upserts: [], removals: [] },
      { instance: 'a', now: at, window: { from: 'f', to: 't' }, watched: 0, requests: 1 },
    );

  it('filters by kind, sport, league (any case) and time; pages newest first; counts each kind of an entry', async () => {
    const store = await fresh();
    await apply(store, T, [entry('p1', ['new']), entry('p2', ['status', 'result'], 'Tennis', 'ATP Tour')]);
    await apply(store, T + 60_000, [entry('p3', ['withdrawn']), entry('p4', ['updated']), entry('p5', ['result'])]);
    const ids = async (query: Parameters<typeof latestChanges>[1]) => (await latestChanges(store.db, query, 10)).map((c) => c.id);
    expect(await ids({})).toEqual(['p5', 'p4', 'p3', 'p2', 'p1']);
    expect(await ids({ kind: 'result' })).toEqual(['p5', 'p2']);
    expect(await ids({ kind: 'status' })).toEqual(['p2']);
    expect(await ids({ sport: 'tennis' })).toEqual(['p2']);
    expect(await ids({ league: 'SERIE A', kind: 'new' })).toEqual(['p1']);
    expect(await ids({ since: new Date(T).toISOString() })).toEqual(['p5', 'p4', 'p3']);
    expect(await ids({ until: new Date(T).toISOString() })).toEqual(['p2', 'p1']);
    const [fourth] = await latestChanges(store.db, {}, 4).then((list) => list.slice(3));
    expect(await ids({ before: fourth!.seq })).toEqual(['p1']);
    const stored = (await latestChanges(store.db, { kind: 'status' }, 1))[0]!;
    expect(stored).toMatchObject({ detectedAt: new Date(T).toISOString(), kinds: ['status', 'result'], after: { result: 'win' } });

    expect(await countChanges(store.db, undefined)).toEqual({
      new: 1,
      status: 1,
      result: 2,
      updated: 1,
      withdrawn: 1,
      restored: 0,
      total: 5,
    });
    expect(await countChanges(store.db, new Date(T).toISOString())).toMatchObject({ total: 3, result: 1, new: 0 });

    const oldest = [];
    for await (const change of readChanges(store.db, {}, 2)) oldest.push(change.id);
    expect(oldest).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);

    expect(await pruneChanges(store.db, new Date(T + 1).toISOString())).toBe(2);
    expect(await ids({})).toEqual(['p5', 'p4', 'p3']);
    expect(await readFeed(store.db)).toMatchObject({ polls: 2, outcome: 'complete', requests: 1 });
  });

  it('remembers visits per person: "since my last visit" holds through a visit and moves on after a gap', async () => {
    const store = await fresh();
    expect(await recordVisit(store.db, 'ana@example.com', T)).toEqual({ sinceMs: null, opened: false });
    expect(await recordVisit(store.db, 'ana@example.com', T + 60_000)).toEqual({ sinceMs: null, opened: true }); // same visit, first ever
    const later = T + 60_000 + VISIT_GAP_MS + 1;
    expect(await currentVisit(store.db, 'ana@example.com', later)).toEqual({ sinceMs: T + 60_000, opened: true });
    expect(await recordVisit(store.db, 'ana@example.com', later)).toEqual({ sinceMs: T + 60_000, opened: true });
    expect(await recordVisit(store.db, 'ana@example.com', later + 5 * 60_000)).toEqual({ sinceMs: T + 60_000, opened: true }); // still that visit
    expect(await currentVisit(store.db, 'bo@example.com', later)).toEqual({ sinceMs: null, opened: false }); // per person
  });
});

describe('the change filters', () => {
  const parse = (query: string, use: 'page' | 'download' = 'download') => parseChangeQuery(new URLSearchParams(query), use);

  it('reads since (exclusive), until (a day means all of it), kind, sport and league', () => {
    expect(parse('since=2026-11-22T06:00:00%2B01:00&until=2026-11-23&kind=withdrawn&sport=Tennis&format=csv')).toEqual({
      since: '2026-11-22T05:00:00.000Z',
      until: '2026-11-23T23:59:59.999Z',
      kind: 'withdrawn',
      sport: 'Tennis',
      format: 'csv',
      visit: false,
    });
    expect(parse('visit=1&before=40&kind=', 'page')).toMatchObject({ visit: true, before: 40 });
  });

  it('refuses unknown names, repeats, bad values and an empty range, naming each', () => {
    const problems = (query: string, use: 'page' | 'download' = 'download') => {
      try {
        parse(query, use);
        return null;
      } catch (error) {
        return (error as { code: string; details: Record<string, string> }).details;
      }
    };
    expect(problems('since=yesterday&kind=gone')).toEqual({
      since: `must be a UTC day (${new Date().toISOString().slice(0, 10)}) or an ISO 8601 time`,
      kind: 'must be one of new, status, result, updated, withdrawn, restored',
    });
    expect(problems('sport=a&sport=b')).toEqual({ sport: 'is given more than once' });
    expect(problems('visit=1')).toEqual({ visit: 'is not a filter of the change feed' }); // the download takes an explicit since
    expect(problems('format=xml', 'page')).toEqual({ format: 'is not a filter of the change feed' });
    expect(problems('since=2026-11-23&until=2026-11-22')).toEqual({ until: 'must be after since' });
  });
});
