import type { Kysely } from 'kysely';
import { toAppError } from '../errors';
import { versionOf, type Version } from '../vocabulary/version';
import { lineLog, workId, type LineLog } from '../log';
import { plural } from '../plural';
import { registerJob } from '../jobs/registry';
import type { UpstreamOutcome } from '../picks-api/client';
import type { Pick } from '../picks-api/schemas';
import { describeWalk, newWalkReport, walkSummary, type WalkReport } from '../picks-api/settle';
import { claimFeedLease, markPollFailed, markPollStarted, readFeed, releaseFeedLease, requestPoll } from '../store/change-feed';
import { applyPoll, readWatched } from '../store/changes';
import { recordPoll } from '../store/feed-health';
import type { Database } from '../store/schema';
import type { ChangeKind } from '../vocabulary/changes';
import { reconcile, snapshot, type Snapshot, type Window } from './reconcile';
import { feedMoved } from '../events/tail';
import type { z } from 'zod';
import type { pollAnswerSchema } from './answers';

/**
 * The change feed's poller. Every instance runs the loop; the one holding the lease in the store polls,
 * the others check now and then and take over when the holder's lease runs out. A poll walks the whole
 * window of event dates; only a complete walk is reconciled and applied (one transaction, fenced by the
 * lease). A walk that fails or is interrupted writes nothing but its error, and the next poll starts over.
 */

export interface FeedSettings {
  daysBack: number;
  daysAhead: number;
  pollMs: number;
  /** Fields left out of the digest (CHANGES_DIGEST_IGNORE). */
  digestIgnore?: readonly string[];
}

/** What the poller needs of the upstream client: a walk of /picks with from/to, counting requests. */
export type WalkPicks = (
  filters: { from: string; to: string },
  call: {
    signal?: AbortSignal;
    onRequest?: () => void;
    onAnswer?: (outcome: UpstreamOutcome) => void;
    priority?: 'bulk';
    report?: WalkReport;
  },
) => AsyncIterable<Pick>;

export interface PollContext {
  db: Kysely<Database>;
  walk: WalkPicks;
  instance: string;
  settings: FeedSettings;
  now?: () => number;
  signal?: AbortSignal;
  /** Told of each poll's outcome and duration as it ends (metrics). */
  onPolled?: (result: PollOutcome, ms: number) => void;
  /** After each poll this instance made, complete or failed (feed health: lib/feed-health). */
  afterPoll?: () => Promise<unknown>;
}

export type PollOutcome =
  | {
      outcome: 'complete';
      entries: number;
      byKind: Partial<Record<ChangeKind, number>>;
      watched: number;
      requests: number;
      baseline: boolean;
    }
  | { outcome: 'failed'; error: string; requests: number }
  | { outcome: 'not-holder' };

const DAY = 86_400_000;
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

export function windowAt(now: number, settings: FeedSettings): Window & { from: string; to: string } {
  const from = iso(now - settings.daysBack * DAY);
  const to = iso(now + settings.daysAhead * DAY);
  return { from, to, fromMs: Date.parse(from), toMs: Date.parse(to) };
}

/** One poll by the lease holder: walk, reconcile, apply, or record the failure. */
export async function pollOnce(context: PollContext): Promise<PollOutcome> {
  const { db, instance, settings } = context;
  const now = context.now ?? Date.now;
  const startedMs = now();
  if (!(await markPollStarted(db, instance, startedMs))) return { outcome: 'not-holder' };
  const window = windowAt(startedMs, settings);
  let requests = 0;
  const answers: Partial<Record<UpstreamOutcome, number>> = {};
  const onAnswer = (outcome: UpstreamOutcome) => (answers[outcome] = (answers[outcome] ?? 0) + 1);
  try {
    const previousState = await readFeed(db);
    const delivered = new Map<string, Snapshot>();
    // Every record's version as read: kept in the record history with the poll (lib/history).
    const versions = new Map<string, Version>();
    const ignore = new Set(settings.digestIgnore ?? []);
    // A walk that cannot settle throws (WALK_UNSETTLED): the poll fails and records nothing, so no record is
    // taken for withdrawn on the strength of a walk the upstream moved under.
    const report = newWalkReport();
    const walk = context.walk(
      { from: window.from, to: window.to },
      { signal: context.signal, onRequest: () => (requests += 1), onAnswer, priority: 'bulk', report },
    );
    for await (const record of walk) {
      // A record without an id cannot be followed (spec §2.2: the id is what changes are keyed on).
      if (typeof record.id !== 'string' || record.id === '') continue;
      delivered.set(record.id, snapshot(record as Pick & { id: string }, ignore));
      versions.set(record.id, versionOf(record as Pick & { id: string }));
    }
    const watched = await readWatched(db);
    const previous =
      previousState.window && previousState.completeMs !== null
        ? { fromMs: Date.parse(previousState.window.from), toMs: Date.parse(previousState.window.to) }
        : null;
    const plan = reconcile(watched, delivered, window, previous);
    const entries = await applyPoll(db, plan, {
      instance,
      now: startedMs,
      window: { from: window.from, to: window.to },
      watched: delivered.size,
      requests,
      walk: walkSummary(report) ? describeWalk(report) : null,
      versions: [...versions.values()],
      previousMs: previous ? previousState.completeMs : null,
    });
    await recordPoll(db, { at: startedMs, instance, outcome: 'complete', code: null, answers }).catch(() => undefined);
    feedMoved();
    const byKind: Partial<Record<ChangeKind, number>> = {};
    if (entries > 0) for (const entry of plan.entries) for (const kind of entry.kinds) byKind[kind] = (byKind[kind] ?? 0) + 1;
    return { outcome: 'complete', entries, byKind, watched: delivered.size, requests, baseline: previous === null };
  } catch (error) {
    const failure = toAppError(error);
    const message = failure.code === 'INTERNAL' ? (error as Error).message : `${failure.code}: ${failure.message}`;
    await markPollFailed(db, instance, now(), message.slice(0, 500), requests).catch(() => undefined);
    await recordPoll(db, { at: startedMs, instance, outcome: 'failed', code: failure.code, answers }).catch(() => undefined);
    return { outcome: 'failed', error: message, requests };
  }
}

export interface PollAsked {
  poll: z.infer<typeof pollAnswerSchema>['poll'];
  sinceMs: number;
}

export interface FeedLoop {
  stop(): Promise<void>;
  /**
   * Polls now if this instance holds the lease; otherwise asks the holder to, at its next check.
   * `sinceMs`: a complete poll that started at or after it answers the asking (a poll's complete time is its start).
   */
  pollNow(): Promise<PollAsked>;
  /** Resolves when the poll running now (if any) has ended; tests and the benchmark wait on it. */
  idle(): Promise<void>;
}

/**
 * The loop of one instance: every `tick` it claims or renews the lease, and the holder polls once the
 * last poll (by any instance) started a period ago. The lease lasts one period and is renewed each tick,
 * so a holder that dies is replaced within a period and a tick, and the next poll follows within two.
 */
export function startFeedLoop(context: Omit<PollContext, 'signal'>, log: LineLog = lineLog('changes')): FeedLoop {
  const { db, instance, settings } = context;
  const now = context.now ?? Date.now;
  const tickMs = Math.max(500, Math.min(30_000, Math.floor(settings.pollMs / 4)));
  let controller = new AbortController();
  let running: Promise<void> | null = null;
  let runningSince = 0;
  let holding = false;
  let stopped = false;

  const start = () => {
    controller = new AbortController();
    const startedAt = performance.now();
    runningSince = now();
    const poll = { poll: workId('poll') }; // every line of this poll carries its id
    running = pollOnce({ ...context, signal: controller.signal })
      .then((result) => {
        const ms = Math.round(performance.now() - startedAt);
        context.onPolled?.(result, ms);
        if (result.outcome === 'failed' && stopped)
          log('[changes] poll abandoned as the instance stops; nothing recorded', { ...poll, ms });
        else if (result.outcome === 'failed') log(`[changes] poll failed, nothing recorded: ${result.error}`, { ...poll, ms });
        else if (result.outcome === 'complete')
          log(
            `[changes] poll complete: ${plural(result.entries, 'change')}, ${plural(result.watched, 'record')} watched, ${plural(result.requests, 'request')}`,
            { ...poll, ms, changes: result.entries, watched: result.watched, requests: result.requests },
          );
      })
      .then(async () => {
        await context.afterPoll?.();
      })
      .catch((error: unknown) => log(`[changes] feed health could not be updated: ${(error as Error).message}`, poll))
      .finally(() => (running = null));
  };

  // The lease is the feed's own (change_feed.holder); the registry runs the check and keeps its only timer.
  const check = async () => {
    if (stopped) return 'skipped' as const;
    const held = holding;
    holding = await claimFeedLease(db, instance, settings.pollMs + tickMs, now());
    if (!holding) {
      if (running) controller.abort(new Error('the change feed lease was lost'));
      return 'skipped' as const;
    }
    const state = await readFeed(db);
    const requested = state.requestedMs !== null && state.requestedMs > (state.startedMs ?? 0);
    // Taking over from a holder whose last poll did not complete (it stopped mid-walk): poll at once, not a period later.
    const takenOverUnfinished = !held && state.outcome !== 'complete' && state.startedMs !== null;
    const due = state.startedMs === null || now() >= state.startedMs + settings.pollMs || requested || takenOverUnfinished;
    if (due && !running) start();
  };
  const job = registerJob({
    name: 'change-feed',
    everyMs: tickMs,
    lease: { own: "the change feed's lease (one instance polls; another takes over within a period)" },
    run: check,
    onStop: async () => {
      stopped = true;
      controller.abort(new Error('the portal is stopping'));
      await running?.catch(() => undefined);
      if (holding) await releaseFeedLease(db, instance).catch(() => undefined);
    },
  });
  return {
    stop: job.stop,
    async pollNow() {
      if (running) return { poll: 'running', sinceMs: runningSince };
      const asked = now();
      holding = await claimFeedLease(db, instance, settings.pollMs + tickMs, asked);
      if (holding) {
        start();
        return { poll: 'started', sinceMs: runningSince };
      }
      await requestPoll(db, asked);
      return { poll: 'requested', sinceMs: asked };
    },
    idle: async () => {
      await running;
    },
  };
}
