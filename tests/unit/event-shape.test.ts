import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventBody, eventType, hashEvent, visibleTo } from '@/lib/events/shape';
import type { EventRow } from '@/lib/store/events';
import type { TokenScope } from '@/lib/vocabulary/tokens';

/** One change feed entry as an event: its type, its record through the token's scope, its changed fields, its hash. */

const everything: TokenScope = { content: ['picks', 'results', 'changes'], sports: [], leagues: [], from: null, to: null };
const was = { id: 'p1', sport: 'Football', league: 'Premier League', status: 'live', odds: 1.9, reasoning: 'form' };
const now = { ...was, status: 'settled', result: 'win', settledAt: '2026-11-20T14:00:00Z' };
const bodies = new Map([
  ['d-was', JSON.stringify(was)],
  ['d-now', JSON.stringify(now)],
]);
const row = (over: Partial<EventRow> = {}): EventRow => ({
  seq: 7,
  detectedAt: '2026-11-20T14:05:00.000Z',
  pickId: 'p1',
  kinds: ['status', 'result'],
  display: { sport: 'Football', league: 'Premier League', eventDate: '2026-11-20T12:00:00Z' },
  before: { status: 'live', result: null, publishedAt: '2026-11-19T10:00:00Z' },
  after: { status: 'settled', result: 'win', publishedAt: '2026-11-19T10:00:00Z' },
  digest: 'd-now',
  prevDigest: 'd-was',
  ...over,
});

describe('events from the change feed', () => {
  it('names each kind of change', () => {
    expect(eventType(row({ kinds: ['new'], before: null }))).toBe('pick.published');
    expect(eventType(row({ kinds: ['withdrawn'] }))).toBe('pick.withdrawn');
    expect(eventType(row({ kinds: ['restored'] }))).toBe('pick.restored');
    expect(eventType(row())).toBe('pick.settled');
    // A result corrected after settlement, a status that moved, a republished record: changes.
    expect(eventType(row({ kinds: ['result'], before: { status: 'settled', result: 'win', publishedAt: null } }))).toBe('pick.changed');
    expect(eventType(row({ kinds: ['status'], after: { status: 'live', result: null, publishedAt: null }, before: null }))).toBe(
      'pick.changed',
    );
    expect(eventType(row({ kinds: ['updated'], before: row().after }))).toBe('pick.changed');
  });

  it('carries the record as the poll saw it and each field that changed, before and after', () => {
    const body = eventBody(row(), bodies, everything);
    expect(body).toEqual({
      seq: 7,
      type: 'pick.settled',
      pickId: 'p1',
      detectedAt: '2026-11-20T14:05:00.000Z',
      record: now,
      changes: {
        result: { before: null, after: 'win' },
        settledAt: { before: null, after: '2026-11-20T14:00:00Z' },
        status: { before: 'live', after: 'settled' },
      },
    });
    // A version no longer kept: the record is null, the changes are the feed's own fields.
    const bare = eventBody(row({ prevDigest: 'gone', digest: 'gone-too' }), bodies, everything);
    expect(bare.record).toBeNull();
    expect(bare.changes).toEqual({ result: { before: null, after: 'win' }, status: { before: 'live', after: 'settled' } });
    expect(eventBody(row({ kinds: ['withdrawn'], digest: null }), bodies, everything)).toMatchObject({ record: null, changes: null });
  });

  it('leaves out the fields of a content the token lacks, in the record and in the changes', () => {
    const picksOnly = { ...everything, content: ['picks', 'changes'] } as TokenScope;
    const body = eventBody(row(), bodies, picksOnly);
    expect(body.record).not.toHaveProperty('result');
    expect(body.record).not.toHaveProperty('settledAt');
    expect(body.changes).toEqual({ status: { before: 'live', after: 'settled' } });
    const resultsOnly = { ...everything, content: ['results', 'changes'] } as TokenScope;
    expect(eventBody(row(), bodies, resultsOnly).record).not.toHaveProperty('reasoning');
  });

  it('is visible inside the scope only; to a results-only token, only for records with a result', () => {
    expect(visibleTo(row(), everything)).toBe(true);
    expect(visibleTo(row(), { ...everything, leagues: ['NBA'] })).toBe(false);
    expect(visibleTo(row(), { ...everything, sports: ['Football'], leagues: ['Premier League'] })).toBe(true);
    expect(visibleTo(row(), { ...everything, from: '2026-11-21T00:00:00Z' })).toBe(false);
    const resultsOnly = { ...everything, content: ['results', 'changes'] } as TokenScope;
    expect(visibleTo(row(), resultsOnly)).toBe(true);
    expect(
      visibleTo(row({ kinds: ['new'], before: null, after: { status: 'upcoming', result: null, publishedAt: null } }), resultsOnly),
    ).toBe(false);
  });

  it('hashes the canonical JSON (RFC 8785) of the event without prev and hash', () => {
    const body = eventBody(row(), bodies, everything);
    const canonical = (value: unknown): string =>
      Array.isArray(value)
        ? `[${value.map(canonical).join(',')}]`
        : value !== null && typeof value === 'object'
          ? `{${Object.keys(value)
              .sort()
              .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
              .join(',')}}`
          : JSON.stringify(value);
    expect(hashEvent(body)).toBe(createHash('sha256').update(canonical(body)).digest('base64url'));
    expect(hashEvent({ ...body, record: { ...now, odds: 2 } })).not.toBe(hashEvent(body));
  });
});
