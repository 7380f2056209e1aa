import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/lib/store/open';
import * as feed from '@/lib/store/feed-health';
import { overdueKind, rulesFor } from '@/lib/feed-health/compute';
import { storeEngines } from '../support/store-engines';

/** Feed health's records, on the embedded database and on a real PostgreSQL: polls, cadences, states, facts per sport. */

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
const NOW = Date.parse('2026-11-25T12:00:00Z');
const HOUR = 3_600_000;

describe.each(storeEngines())('feed health on $name', (engine) => {
  async function store() {
    const s = await openStore(await engine.fresh());
    opened.push(s);
    return s.db;
  }

  it('keeps poll outcomes newest first, and cadences set, changed and removed', async () => {
    const db = await store();
    await feed.recordPoll(db, { at: NOW - 2 * HOUR, instance: 'a', outcome: 'complete', code: null, answers: { ok: 12, '429': 2 } });
    await feed.recordPoll(db, { at: NOW - HOUR, instance: 'a', outcome: 'failed', code: 'THROTTLED', answers: { '429': 4 } });
    await feed.recordPoll(db, { at: NOW - HOUR, instance: 'a', outcome: 'failed', code: 'THROTTLED' }); // the same poll twice: once
    expect(await feed.recentPolls(db, NOW - 3 * HOUR)).toEqual([
      { at: NOW - HOUR, outcome: 'failed', code: 'THROTTLED', answers: { '429': 4 } },
      { at: NOW - 2 * HOUR, outcome: 'complete', code: null, answers: { ok: 12, '429': 2 } },
    ]);
    await feed.setCadences(db, { Football: 3600, Tennis: 900 }, 'admin@example.com');
    await feed.setCadences(db, { Football: 7200, Tennis: null }, 'boss@example.com');
    expect((await feed.readCadences(db)).map((c) => [c.sport, c.seconds, c.updatedBy])).toEqual([['Football', 7200, 'boss@example.com']]);
  });

  it('logs changes of state: the latest per sport, a week’s history with the state in force before it, pruned keeping the latest', async () => {
    const db = await store();
    const at = (h: number) => NOW - h * HOUR;
    await feed.recordStates(db, [
      { sport: 'Football', state: 'healthy', side: null, reason: 'ok', at: at(300) },
      { sport: 'Football', state: 'degraded', side: 'upstream', reason: 'slow', at: at(10) },
      { sport: 'Tennis', state: 'down', side: 'licence', reason: '401', at: at(400) },
    ]);
    await feed.recordStates(db, [{ sport: 'Football', state: 'healthy', side: null, reason: 'ok', at: at(2) }]);
    const latest = await feed.latestStates(db);
    expect([...latest.values()].map((e) => [e.sport, e.state, e.at]).sort()).toEqual([
      ['Football', 'healthy', at(2)],
      ['Tennis', 'down', at(400)],
    ]);
    const week = await feed.stateHistory(db, at(168));
    expect(week.map((e) => [e.sport, e.state, e.at])).toEqual(
      expect.arrayContaining([
        ['Football', 'healthy', at(300)],
        ['Tennis', 'down', at(400)],
        ['Football', 'degraded', at(10)],
        ['Football', 'healthy', at(2)],
      ]),
    );
    expect(week).toHaveLength(4);
    await feed.pruneFeedHealth(db, at(168));
    expect((await feed.stateHistory(db, 0)).map((e) => [e.sport, e.state]).sort()).toEqual([
      ['Football', 'degraded'],
      ['Football', 'healthy'],
      ['Tennis', 'down'],
    ]);
  });

  it('gathers each sport’s facts: watched, overdue, last change, publication lag, re-settlements and withdrawals', async () => {
    const db = await store();
    const display = (sport: string) => JSON.stringify({ sport, league: `${sport} League` });
    await db
      .insertInto('watched')
      .values([
        {
          id: 'a',
          published_at: null,
          status: 'upcoming',
          result: null,
          digest: 'x',
          event_ms: NOW - 2 * HOUR,
          display: display('Football'),
          withdrawn: 0,
        },
        {
          id: 'b',
          published_at: null,
          status: 'live',
          result: null,
          digest: 'x',
          event_ms: NOW - 20 * HOUR,
          display: display('Football'),
          withdrawn: 0,
        },
        {
          id: 'c',
          published_at: null,
          status: 'settled',
          result: 'win',
          digest: 'x',
          event_ms: NOW - 20 * HOUR,
          display: display('Football'),
          withdrawn: 0,
        },
        {
          id: 'd',
          published_at: null,
          status: 'live',
          result: null,
          digest: 'x',
          event_ms: NOW - 9 * HOUR,
          display: display('Cricket'),
          withdrawn: 0,
        },
        {
          id: 'e',
          published_at: null,
          status: 'upcoming',
          result: null,
          digest: 'x',
          event_ms: NOW - 5 * HOUR,
          display: display('Cricket'),
          withdrawn: 1,
        },
      ])
      .execute();
    const change = (seq: number, hoursAgo: number, sport: string, kinds: string, before: object | null, after: object | null) => ({
      seq,
      detected_at: new Date(NOW - hoursAgo * HOUR).toISOString(),
      pick_id: `p${seq}`,
      kinds,
      sport,
      league: `${sport} League`,
      display: '{}',
      before: before && JSON.stringify(before),
      after: after && JSON.stringify(after),
    });
    await db
      .insertInto('changes')
      .values([
        change(1, 30, 'Football', 'new', null, { publishedAt: new Date(NOW - 31 * HOUR).toISOString() }),
        change(2, 3, 'Football', 'new', null, { publishedAt: new Date(NOW - 3 * HOUR - 60_000).toISOString() }),
        change(3, 2, 'Football', 'new', null, { publishedAt: new Date(NOW - 2 * HOUR - 180_000).toISOString() }),
        change(4, 1, 'Football', 'result', { result: 'win' }, { result: 'loss' }),
        change(5, 1, 'Football', 'status result', { result: null }, { result: 'win' }),
        change(6, 1, 'Cricket', 'withdrawn', { status: 'upcoming' }, null),
      ])
      .execute();
    const facts = Object.fromEntries(
      (await feed.sportFacts(db, NOW, (sport, record) => overdueKind(record, rulesFor(sport), NOW))).map((f) => [f.sport, f]),
    );
    expect(facts.Football).toEqual({
      sport: 'Football',
      watched: 3,
      lastChangeMs: NOW - HOUR,
      publicationLagSeconds: 60, // the median of 60 s and 180 s, taken as the lower: the day's new records only
      overdue: { upcoming: 1, live: 0, unsettled: 1 },
      resettled24h: 1,
      withdrawn24h: 0,
      leagues: [{ league: 'Football League', watched: 3, lastChangeMs: NOW - HOUR, overdue: 2 }],
    });
    // What one poll found re-settled: a result that changed after a first settlement, not a first one.
    expect(await feed.resettlementsOf(db, new Date(NOW - HOUR).toISOString())).toEqual([
      { id: 'p4', sport: 'Football', was: 'win', now: 'loss' },
    ]);
    // Cricket's live pick is within its longer threshold; its withdrawn one is not watched.
    expect(facts.Cricket).toMatchObject({ watched: 1, overdue: { upcoming: 0, live: 0, unsettled: 0 }, withdrawn24h: 1 });
  });
});
