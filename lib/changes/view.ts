import 'server-only';
import { getConfig } from '../config';
import { toAppError, type AppErrorJson } from '../errors';
import type { PageSearchParams } from '../picks-api/filters';
import { toSearchParams } from '../paging';
import { fromStore } from '../store';
import { currentVisit, readFeed, recordVisit, type FeedState } from '../store/change-feed';
import { countChanges, latestChanges, type StoredChange } from '../store/changes';
import { parseChangeQuery, type ChangeFilters } from './query';
import { feedSettings } from './feed';

export const PAGE_SIZE = 100;

/** The feed's status line: last complete poll, next poll, window, records watched, and the last failure. */
export interface FeedStatus {
  polling: boolean;
  pollSeconds: number;
  lastCompleteAt: string | null;
  nextPollAt: string | null;
  window: { from: string; to: string } | null;
  watched: number;
  polls: number;
  /** The last poll failed or was interrupted: when, and why (nothing was recorded). */
  failure: { at: string; error: string } | null;
  running: boolean;
  /** The last complete poll's walk, when the upstream moved under it (a second pass, duplicates dropped). */
  walk: string | null;
}

export function feedStatus(state: FeedState, now = Date.now()): FeedStatus {
  const settings = feedSettings(getConfig());
  const pollMs = settings?.pollMs ?? 0;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  // A poll still marked running after a whole lease is one whose instance stopped mid-walk.
  const interrupted = state.outcome === 'running' && state.startedMs !== null && now > state.startedMs + 2 * pollMs;
  const failure =
    state.outcome === 'failed' && state.startedMs !== null
      ? { at: iso(state.startedMs)!, error: state.error ?? 'unknown error' }
      : interrupted
        ? { at: iso(state.startedMs)!, error: 'the walk was interrupted (the instance polling stopped)' }
        : null;
  return {
    polling: settings !== null,
    pollSeconds: pollMs / 1000,
    lastCompleteAt: iso(state.completeMs),
    nextPollAt: settings ? iso(Math.max(now, (state.startedMs ?? now) + pollMs)) : null,
    window: state.window,
    watched: state.watched,
    polls: state.polls,
    failure,
    running: state.outcome === 'running' && !interrupted,
    walk: state.walk,
  };
}

export type ChangesView =
  | {
      ok: true;
      entries: StoredChange[];
      filters: ChangeFilters;
      /** The filters as a query string (without paging), for links; `since` filled in when "since my last visit" is on. */
      query: string;
      /** Where "since my last visit" starts (null: first visit, everything). */
      visitSince: string | null;
      older: number | null;
      status: FeedStatus;
    }
  | { ok: false; error: AppErrorJson; status: FeedStatus | null };

/** The /changes page: records the visit, then reads the entries the URL asks for, newest first. */
export async function changesView(params: PageSearchParams, email: string): Promise<ChangesView> {
  let status: FeedStatus | null = null;
  try {
    const search = toSearchParams(params);
    const state = await fromStore(readFeed);
    status = feedStatus(state);
    const filters = parseChangeQuery(search, 'page');
    const visit = await fromStore((db) => recordVisit(db, email));
    const visitSince = visit.sinceMs === null ? null : new Date(visit.sinceMs).toISOString();
    const query = { ...filters, since: filters.visit ? (visitSince ?? undefined) : filters.since };
    const entries = await fromStore((db) => latestChanges(db, query, PAGE_SIZE + 1));
    const older = entries.length > PAGE_SIZE ? entries[PAGE_SIZE - 1]!.seq : null;
    search.delete('before');
    return { ok: true, entries: entries.slice(0, PAGE_SIZE), filters, query: search.toString(), visitSince, older, status };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON(), status };
  }
}

/** The overview's counts: changes by kind since the person's last visit to /changes (not recorded as a visit). */
export async function changeCounts(
  email: string,
): Promise<
  { ok: true; since: string | null; opened: boolean; counts: Awaited<ReturnType<typeof countChanges>> } | { ok: false; error: AppErrorJson }
> {
  try {
    return await fromStore(async (db) => {
      const visit = await currentVisit(db, email);
      const since = visit.sinceMs === null ? null : new Date(visit.sinceMs).toISOString();
      return { ok: true as const, since, opened: visit.opened, counts: await countChanges(db, since ?? undefined) };
    });
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}
