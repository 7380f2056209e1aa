import { describe, expect, it } from 'vitest';
import { reconcile, snapshot, type Snapshot, type Window } from '@/lib/changes/reconcile';
import type { Pick } from '@/lib/picks-api/schemas';

/** The reconciliation rules, one case each: what counts as which kind, and what is left alone. */

const DAY = 86_400_000;
const T = Date.parse('2026-11-20T12:00:00Z');
const window: Window = { fromMs: T - 7 * DAY, toMs: T + 14 * DAY };

const record = (id: string, change: Partial<Pick> = {}): Pick & { id: string } => ({
  sport: 'Football',
  league: 'Serie A',
  homeTeam: 'Etna Calcio',
  awayTeam: 'Bergamo Nord FC',
  eventDate: new Date(T + DAY).toISOString(),
  marketType: 'match_winner',
  selection: 'Etna Calcio',
  odds: 2.1,
  status: 'upcoming',
  result: null,
  publishedAt: '2026-11-19T08:00:00.000Z',
  ...change,
  id,
});

const map = (...records: (Pick & { id: string })[]) => new Map(records.map((r) => [r.id, snapshot(r)]));
const kinds = (plan: ReturnType<typeof reconcile>) => Object.fromEntries(plan.entries.map((e) => [e.id, e.kinds.join(' ')]));

describe('snapshot', () => {
  it('digests everything but the compared fields; key order, null and absent do not matter', () => {
    const a = snapshot(record('a', { reasoning: null, eventMetadata: { competition: 'Serie A', stage: null } }));
    const b = snapshot({
      ...Object.fromEntries(Object.entries(record('a')).reverse()),
      id: 'a',
      eventMetadata: { competition: 'Serie A' },
    });
    expect(a.digest).toBe(b.digest);
    const base = snapshot(record('a')).digest;
    expect(snapshot(record('a', { status: 'live', result: 'win', publishedAt: 'x' })).digest).toBe(base);
    expect(snapshot(record('a', { reasoning: null })).digest).toBe(base);
    expect(snapshot(record('a', { odds: 2.2 })).digest).not.toBe(base);
    expect(snapshot(record('a', { marketGroup: { key: 'x' } } as Partial<Pick>)).digest).not.toBe(base); // fields beyond v1 count too
    // Fields an operator leaves out (CHANGES_DIGEST_IGNORE), e.g. logo URLs signed anew on every answer.
    const signed = (sig: string) => record('a', { homeTeamLogoUrl: `https://cdn.example.com/a.svg?sig=${sig}` });
    expect(snapshot(signed('1')).digest).not.toBe(snapshot(signed('2')).digest);
    const ignore = new Set(['homeTeamLogoUrl']);
    expect(snapshot(signed('1'), ignore).digest).toBe(snapshot(signed('2'), ignore).digest);
    expect(a.display).toEqual({
      sport: 'Football',
      league: 'Serie A',
      homeTeam: 'Etna Calcio',
      awayTeam: 'Bergamo Nord FC',
      eventDate: new Date(T + DAY).toISOString(),
      marketType: 'match_winner',
      selection: 'Etna Calcio',
    });
  });
});

describe('reconcile', () => {
  it('lists nothing for the baseline, and watches everything', () => {
    const plan = reconcile(new Map(), map(record('a'), record('b')), window, null);
    expect(plan.entries).toEqual([]);
    expect(plan.upserts.map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('names each kind that applies, once per record, with before and after', () => {
    const watched = map(
      record('same'),
      record('live', { status: 'upcoming' }),
      record('settled', { status: 'live' }),
      record('edited'),
      record('republished'),
      record('odd', { status: 'upcoming' }),
      record('regraded', { status: 'settled', result: 'win' }),
    );
    const delivered = map(
      record('same'),
      record('live', { status: 'live', publishedAt: '2026-11-21T13:00:00.000Z' }),
      record('settled', { status: 'settled', result: 'loss', settledAt: '2026-11-21T15:00:00.000Z' }),
      record('edited', { odds: 2.4 }),
      record('republished', { publishedAt: '2026-11-20T09:00:00.000Z' }),
      record('odd', { status: 'postponed' }), // a state the spec does not list is kept as it comes
      record('regraded', { status: 'settled', result: 'push' }),
      record('fresh'),
    );
    const plan = reconcile(watched, delivered, window, window);
    expect(kinds(plan)).toEqual({
      live: 'status',
      settled: 'status result',
      edited: 'updated',
      republished: 'updated',
      odd: 'status',
      regraded: 'result',
      fresh: 'new',
    });
    expect(plan.entries.find((e) => e.id === 'settled')).toMatchObject({
      before: { status: 'live', result: null },
      after: { status: 'settled', result: 'loss' },
      display: { homeTeam: 'Etna Calcio', sport: 'Football' },
    });
    expect(plan.entries.find((e) => e.id === 'fresh')).toMatchObject({ before: null, after: { status: 'upcoming' } });
    // Unchanged records are not rewritten.
    expect(plan.upserts.map((s) => s.id)).not.toContain('same');
  });

  it('withdraws a record no longer delivered while its event is in the window, and forgets one whose event left it', () => {
    const inside = record('inside');
    const gone = record('gone', { eventDate: new Date(window.fromMs - 1).toISOString() });
    const plan = reconcile(map(inside, gone), new Map(), window, window);
    expect(kinds(plan)).toEqual({ inside: 'withdrawn' });
    expect(plan.entries[0]).toMatchObject({ before: { status: 'upcoming' }, after: null, display: { homeTeam: 'Etna Calcio' } });
    expect(plan.upserts).toEqual([expect.objectContaining({ id: 'inside', withdrawn: true })]);
    expect(plan.removals).toEqual(['gone']);
    // Already withdrawn: not listed again.
    const again = reconcile(new Map(plan.upserts.map((s) => [s.id, s])), new Map(), window, window);
    expect(again.entries).toEqual([]);
  });

  it('says restored when a withdrawn record is delivered again', () => {
    const withdrawn: Snapshot = { ...snapshot(record('back')), withdrawn: true };
    const plan = reconcile(new Map([['back', withdrawn]]), map(record('back', { status: 'live' })), window, window);
    expect(kinds(plan)).toEqual({ back: 'restored status' });
  });

  it('takes a record that only entered the window as it rolled forward as that slice’s baseline, not as new', () => {
    const previous: Window = { fromMs: window.fromMs - DAY, toMs: window.toMs - DAY };
    const edge = record('edge', { eventDate: new Date(window.toMs - 3_600_000).toISOString() });
    const plan = reconcile(new Map(), map(edge, record('fresh')), window, previous);
    expect(kinds(plan)).toEqual({ fresh: 'new' });
    expect(plan.upserts.map((s) => s.id).sort()).toEqual(['edge', 'fresh']);
  });
});
