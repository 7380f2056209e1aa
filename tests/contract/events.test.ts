import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce, type FeedSettings } from '@/lib/changes/poller';
import { AheadOfFeed, hashAtOrBefore, readEventsAfter, resumePoint } from '@/lib/events/read';
import type { PickEvent } from '@/lib/events/shape';
import { createPicksClient } from '@/lib/picks-api/client';
import { claimFeedLease } from '@/lib/store/change-feed';
import { pruneChanges, readChanges } from '@/lib/store/changes';
import { checkpointsAfter, lastEventSeq } from '@/lib/store/events';
import { checkpointAll } from '@/lib/events/checkpoints';
import { canonicalBytes } from '@/lib/proof/canonical';
import { parseSigningKey } from '@/lib/proof/keys';
import { signWith } from '@/lib/proof/signer';
import { insertToken } from '@/lib/store/tokens';
import { hashToken } from '@/lib/tokens/access';
import { verifyEvents } from '@/public/verify-picks-events.mjs';
import { TEST_KEY_FILE, writeTestKeys } from '../support/proof';
import { openStore, type Store } from '@/lib/store/open';
import { canonicalJson } from '@/lib/vocabulary/version';
import type { TokenScope } from '@/lib/vocabulary/tokens';
import { lifecycleAt } from '@/sandbox/data';
import { inLicence } from '@/sandbox/scope';
import { createSandbox, type Sandbox } from '@/sandbox/server';
import { storeEngines } from '../support/store-engines';

/**
 * The change feed read as API v1's events, against the sandbox over real HTTP, on both store engines: every
 * entry is one event of the right type, carrying the record exactly as the API now answers it, linked to the one
 * before in the token's view; a narrowed token sees its league only; resuming gives the rest, none twice;
 * resuming from before what is kept starts with a gap; event ids never go back.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'sandbox-full-key';
const settings: FeedSettings = { daysBack: 7, daysAhead: 14, pollMs: 300_000 };
const everything: TokenScope = { content: ['picks', 'results', 'changes'], sports: [], leagues: [], from: null, to: null };
let sandbox: Sandbox;
let baseUrl: string;

beforeAll(async () => {
  sandbox = createSandbox({ now: () => T0, rateLimit: null, picks: 6000 });
  baseUrl = await sandbox.listen(0);
});
afterAll(() => sandbox.close());

const client = () => createPicksClient({ baseUrl, apiKey: KEY, retry: { maxRetries: 0 } });
const all = async (store: Store, scope: TokenScope, after = 0) => (await readEventsAfter(store.db, scope, after, 100_000, null)).events;

describe.each(storeEngines())('API v1 events on $name', (engine) => {
  const opened: Store[] = [];
  afterEach(async () => {
    sandbox.controls.setNow(T0);
    sandbox.controls.retracted.clear();
    sandbox.controls.edits.clear();
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  async function polled() {
    const store = await openStore(await engine.fresh());
    opened.push(store);
    expect(await claimFeedLease(store.db, 'a', 30 * 86_400_000, T0)).toBe(true);
    const poll = () =>
      pollOnce({
        db: store.db,
        walk: (f, call) => client().walkPicks(f, call),
        instance: 'a',
        settings,
        now: () => sandbox.controls.now(),
      });
    expect(await poll()).toMatchObject({ outcome: 'complete', entries: 0 });
    return { store, poll };
  }

  it('gives each entry as one event with the record the API answers now, linked in order', async () => {
    const { store, poll } = await polled();
    const licence = sandbox.licences.find((l) => l.key === KEY)!;
    const upcoming = sandbox.records.find(
      (r) =>
        r.eventMs > T0 + 2 * 86_400_000 &&
        r.eventMs < T0 + 10 * 86_400_000 &&
        r.voidAtMs === null &&
        lifecycleAt(r, T0).published &&
        inLicence(licence, r, sandbox.anchorMs),
    )!;
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    sandbox.controls.edits.set(upcoming.id, { fields: { odds: 9.99 }, atMs: T0 + 6 * 3_600_000 });
    expect((await poll()).outcome).toBe('complete');
    const entries = [];
    for await (const change of readChanges(store.db)) entries.push(change);
    const events = await all(store, everything);
    expect(events.map((e) => e.seq)).toEqual(entries.map((e) => e.seq));
    expect(events.map((e) => e.pickId)).toEqual(entries.map((e) => e.id));
    const types = new Set(events.map((e) => e.type));
    expect([...types].sort()).toEqual(expect.arrayContaining(['pick.changed', 'pick.published', 'pick.settled']));
    // Linked: each names the hash of the one before; the first, nothing before it.
    expect(events[0]!.prev).toBeNull();
    for (let i = 1; i < events.length; i += 1) expect(events[i]!.prev).toBe(events[i - 1]!.hash);
    // The record is what the API answers for it now (null members are absent: spec §9).
    for (const event of events.filter((_, i) => i % 7 === 0).slice(0, 12)) {
      const res = await fetch(`${baseUrl}/api/v1/picks/${encodeURIComponent(event.pickId)}`, {
        headers: { Authorization: `Bearer ${KEY}` },
      });
      const { data } = (await res.json()) as { data: unknown };
      expect(canonicalJson(event.record)).toBe(canonicalJson(data));
    }
    // A settlement says what changed; an edit names its fields.
    const settled = events.find((e) => e.type === 'pick.settled')!;
    expect(settled.changes?.status).toEqual({ before: expect.any(String), after: 'settled' });
    expect(settled.changes?.result).toEqual({ before: null, after: expect.stringMatching(/^(win|loss|push|void)$/) });
    const edit = events.find((e) => e.pickId === upcoming.id)!;
    expect(edit.type).toBe('pick.changed');
    expect(edit.changes).toMatchObject({ odds: { before: upcoming.body.odds, after: 9.99 } });
  });

  it("narrows to the token's league, and resumes after any event with the rest, none twice", async () => {
    const { store, poll } = await polled();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    const every = await all(store, everything);
    const league = every[Math.floor(every.length / 2)]!.record!.league as string;
    const narrow = { ...everything, leagues: [league] };
    const mine = await all(store, narrow);
    expect(mine.length).toBeGreaterThan(2);
    expect(mine.length).toBeLessThan(every.length);
    expect(mine.every((e) => (e.record?.league ?? null) === league)).toBe(true);
    expect(mine.map((e) => e.pickId)).toEqual(every.filter((e) => e.record?.league === league).map((e) => e.pickId));
    for (let i = 1; i < mine.length; i += 1) expect(mine[i]!.prev).toBe(mine[i - 1]!.hash);
    // Resume after the second: the rest, the first of them linked to the one seen.
    const at = mine[1]!.seq;
    const prev = await hashAtOrBefore(store.db, narrow, at);
    expect(prev).toBe(mine[1]!.hash);
    const rest: PickEvent[] = [];
    let cursor = at;
    for (let link = prev; ;) {
      const page = await readEventsAfter(store.db, narrow, cursor, 2, link);
      rest.push(...page.events);
      if (page.events.length === 0) break;
      cursor = page.scanned;
      link = page.events.at(-1)!.hash;
    }
    expect(rest).toEqual(mine.slice(2));
  });

  it("signs a checkpoint after every so many of a token's events and hourly for the rest, each one the offline verifier accepts", async () => {
    const { store, poll } = await polled();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    const events = await all(store, everything);
    expect(events.length).toBeGreaterThan(25);
    const token = {
      id: 'tok_events_0001',
      name: 'stream',
      owner: 'ed@example.com',
      ownerSinceMs: T0,
      prefix: 'pvt_abcdef',
      scope: everything,
      expiresMs: T0 + 30 * 86_400_000,
      ratePerMinute: 60,
      dailyRecords: 1_000,
      createdMs: T0,
      createdBy: 'ed@example.com',
      updatedMs: T0,
      revokedMs: null,
      revokedBy: null,
    };
    await insertToken(store.db, token, hashToken('pvt_events-test'));
    const key = await parseSigningKey(await readFile(TEST_KEY_FILE, 'utf8'));
    const keys = JSON.parse(
      await readFile(await writeTestKeys(path.join(await mkdtemp(path.join(tmpdir(), 'cp-')), 'keys.json')), 'utf8'),
    ).keys;
    const signer = async (statement: Record<string, unknown>) => signWith(key, canonicalBytes(statement), 'picks-events-receipt+json');
    const now = T0 + 6 * 3_600_000 + 60_000;
    // Every 10 events; the rest waits for the hour since the last checkpoint.
    expect(await checkpointAll(store.db, 7, now, signer, 10)).toBe(Math.floor(events.length / 10));
    expect(await checkpointAll(store.db, 7, now + 1_000, signer, 10)).toBe(0);
    sandbox.controls.setNow(T0 + 12 * 3_600_000);
    await poll();
    const every = await all(store, everything);
    expect(every.length - events.length).toBeGreaterThan(10);
    const tens = Math.floor(every.length / 10) - Math.floor(events.length / 10);
    expect(await checkpointAll(store.db, 7, now + 2_000, signer, 10)).toBe(tens);
    expect(await checkpointAll(store.db, 7, now + 3_700_000, signer, 10)).toBe(every.length % 10 ? 1 : 0);
    const checkpoints = await checkpointsAfter(store.db, token.id, 0, 100);
    expect(checkpoints.map((c) => c.count)).toEqual([
      ...Array(Math.floor(every.length / 10)).fill(10),
      ...(every.length % 10 ? [every.length % 10] : []),
    ]);
    // One after the other, from the first event to the last, each one the verifier accepts against the events received.
    expect(checkpoints[0]!.fromSeq).toBe(every[0]!.seq);
    for (let i = 1; i < checkpoints.length; i += 1) expect(checkpoints[i]!.fromSeq).toBe(checkpoints[i - 1]!.toSeq + 1);
    expect(checkpoints.at(-1)!.lastHash).toBe(every.at(-1)!.hash);
    for (const checkpoint of checkpoints) {
      const { checks } = verifyEvents(every as never, checkpoint.jws, keys);
      expect(checks.filter((c) => !c.ok)).toEqual([]);
    }
    expect(
      verifyEvents(every.slice(1) as never, checkpoints[0]!.jws, keys)
        .checks.filter((c) => !c.ok)
        .map((c) => c.name),
    ).toEqual(['links', 'count']);
  });

  it('starts with a gap before what is kept, refuses ids it never gave, and never numbers back', async () => {
    const { store, poll } = await polled();
    sandbox.controls.setNow(T0 + 6 * 3_600_000);
    await poll();
    const firstBurst = await lastEventSeq(store.db);
    sandbox.controls.setNow(T0 + 4 * 86_400_000);
    await poll();
    const last = await lastEventSeq(store.db);
    expect(last).toBeGreaterThan(firstBurst);
    // Kept: one day back from just after the second poll. Asking from 0, or from inside the first burst: a gap.
    const later = T0 + 4 * 86_400_000 + 60_000;
    expect(await resumePoint(store.db, 0, 1, true, later)).toEqual({ after: firstBurst, gap: { asked: 0, first: firstBurst + 1 }, last });
    expect((await resumePoint(store.db, 3, 1, true, later)).gap).toEqual({ asked: 3, first: firstBurst + 1 });
    expect(await resumePoint(store.db, firstBurst, 1, true, later)).toEqual({ after: firstBurst, gap: null, last });
    expect(await resumePoint(store.db, null, 1, false, later)).toEqual({ after: last, gap: null, last });
    await expect(resumePoint(store.db, last + 1, 1, true, later)).rejects.toBeInstanceOf(AheadOfFeed);
    // Every entry pruned: the numbers go on from the last one given.
    await pruneChanges(store.db, new Date(T0 + 400 * 86_400_000).toISOString());
    expect(await lastEventSeq(store.db)).toBe(last);
    sandbox.controls.setNow(T0 + 5 * 86_400_000);
    await poll();
    const next = await all(store, everything);
    expect(next.length).toBeGreaterThan(0);
    expect(next[0]!.seq).toBe(last + 1);
  });
});
