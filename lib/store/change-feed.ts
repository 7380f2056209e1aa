import type { Kysely, UpdateObject } from 'kysely';
import type { Database } from './schema';

/**
 * The change feed's single row: the polling lease (exactly one instance polls; a holder that dies is
 * replaced once its lease runs out) and how the last polls went, for the status line of /changes.
 * Also each person's visits to /changes, for "since my last visit".
 */

type Db = Kysely<Database>;
const FEED = 'feed';

export interface FeedState {
  holder: string | null;
  leaseExpires: number;
  /** The last poll's start, complete or not. */
  startedMs: number | null;
  outcome: 'complete' | 'failed' | 'running' | null;
  error: string | null;
  completeMs: number | null;
  window: { from: string; to: string } | null;
  watched: number;
  requests: number;
  polls: number;
  polledBy: string | null;
  requestedMs: number | null;
  /** The last complete poll's walk, in words, when the upstream moved under it. */
  walk: string | null;
}

export async function readFeed(db: Db): Promise<FeedState> {
  const row = await db.selectFrom('change_feed').selectAll().where('name', '=', FEED).executeTakeFirstOrThrow();
  return {
    holder: row.holder,
    leaseExpires: Number(row.lease_expires),
    startedMs: row.started_ms === null ? null : Number(row.started_ms),
    outcome: row.outcome as FeedState['outcome'],
    error: row.error,
    completeMs: row.complete_ms === null ? null : Number(row.complete_ms),
    window: row.window_from && row.window_to ? { from: row.window_from, to: row.window_to } : null,
    watched: Number(row.watched),
    requests: Number(row.requests),
    polls: Number(row.polls),
    polledBy: row.polled_by,
    requestedMs: row.requested_ms === null ? null : Number(row.requested_ms),
    walk: row.walk ?? null,
  };
}

/**
 * Updates the feed row only if `instance` holds an unexpired lease; false when it does not. Inside a
 * transaction this is also its first write, so it serialises whoever else touches the feed.
 */
export async function takeFeed(db: Db, instance: string, now: number, set: UpdateObject<Database, 'change_feed'>): Promise<boolean> {
  const result = await db
    .updateTable('change_feed')
    .set(set)
    .where('name', '=', FEED)
    .where('holder', '=', instance)
    .where('lease_expires', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Takes the lease if it is free or run out, or renews it if `instance` holds it. One statement: atomic on both engines. */
export async function claimFeedLease(db: Db, instance: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const result = await db
    .updateTable('change_feed')
    .set({ holder: instance, lease_expires: now + ttlMs })
    .where('name', '=', FEED)
    .where((eb) => eb.or([eb('holder', '=', instance), eb('holder', 'is', null), eb('lease_expires', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives the lease up (a stopping instance), so another takes over at its next check. */
export async function releaseFeedLease(db: Db, instance: string): Promise<void> {
  await db
    .updateTable('change_feed')
    .set({ holder: null, lease_expires: 0 })
    .where('name', '=', FEED)
    .where('holder', '=', instance)
    .execute();
}

/** Asks whichever instance holds the lease to poll at its next check. */
export async function requestPoll(db: Db, now = Date.now()): Promise<void> {
  await db.updateTable('change_feed').set({ requested_ms: now }).where('name', '=', FEED).execute();
}

export const markPollStarted = (db: Db, instance: string, now: number) =>
  takeFeed(db, instance, now, { started_ms: now, outcome: 'running', polled_by: instance });

/** A walk that failed: said on the page with its error; nothing else is written. */
export const markPollFailed = (db: Db, instance: string, now: number, error: string, requests: number) =>
  takeFeed(db, instance, now, { outcome: 'failed', error, requests });

/** Where "since my last visit" starts: a visit is a run of page views less than VISIT_GAP_MS apart. */
export const VISIT_GAP_MS = 30 * 60_000;

export interface Visit {
  /** The start of the changes this person has not seen: the end of their previous visit; null on a first visit. */
  sinceMs: number | null;
  /** Whether this person has ever opened /changes (a first visit in progress has no start yet, but is a visit). */
  opened: boolean;
}

/** The visit as it stands, without recording one (the overview counts). */
export async function currentVisit(db: Db, email: string, now = Date.now()): Promise<Visit> {
  const row = await db.selectFrom('change_visits').selectAll().where('email', '=', email).executeTakeFirst();
  if (!row) return { sinceMs: null, opened: false };
  const last = Number(row.last_ms);
  // Within a visit, what was new when it began stays "since my last visit"; after a gap, the last view ends the previous visit.
  return { sinceMs: now - last < VISIT_GAP_MS ? (row.previous_ms === null ? null : Number(row.previous_ms)) : last, opened: true };
}

/** Records a view of /changes and answers where "since my last visit" starts for it. */
export async function recordVisit(db: Db, email: string, now = Date.now()): Promise<Visit> {
  const visit = await currentVisit(db, email, now);
  await db
    .insertInto('change_visits')
    .values({ email, last_ms: now, previous_ms: visit.sinceMs })
    .onConflict((oc) => oc.column('email').doUpdateSet({ last_ms: now, previous_ms: visit.sinceMs }))
    .execute();
  return visit;
}
