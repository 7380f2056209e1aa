import 'server-only';
import type { Kysely } from 'kysely';
import type { LicenceSummary } from '../vocabulary/licence';
import { licenceOrNull } from '../picks-api/portal';
import { readFeed } from '../store/change-feed';
import { toAppError } from '../errors';
import { fromStore } from '../store';
import { readMeta, writeMeta } from '../store/meta';
import {
  latestStates,
  licenceChanges,
  noteLicenceScope,
  readCadences,
  recentPolls,
  recordStates,
  sportFacts,
  stateHistory,
  type LicenceChange,
  type StateEntry,
} from '../store/feed-health';
import type { Database } from '../store/schema';
import { pollerAndUpstream } from './poller';
import {
  feedHealth,
  leagueKey,
  licenceScope,
  noFacts,
  overdueKind,
  rulesFor,
  scopeDifferences,
  type SportFacts,
  type SportHealth,
} from './compute';

type Db = Kysely<Database>;
const DAY_MS = 86_400_000;

/** One sport's health as the API and /health show it: state, side, reason, since when, and the figures behind it. */
export type SportHealthView = SportHealth & { since: string } & Omit<SportFacts, 'sport' | 'lastChangeMs' | 'leagues'> & {
    lastChangeAt: string | null;
    cadenceSeconds: number | null;
    leagues: { league: string; watched: number; lastChangeAt: string | null; overdue: number; cadenceSeconds: number | null }[];
  };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Each sport's health now. With `record` (the polling instance, after each poll) a change of state or side
 * is written to the log, which gives `since` and the timeline; without it (pages, the API) nothing is written,
 * and a state not yet logged is said to hold since now.
 */
export async function sportsHealth(
  db: Db,
  pollMs: number | null,
  options: {
    record?: boolean;
    now?: number;
    licence?: LicenceSummary | null;
    /** With `record`: told of the changes of state just logged, and each sport's state before them (alerts). */
    onChanged?: (changed: StateEntry[], previous: Map<string, StateEntry>) => Promise<void>;
    /** With `record`: told of a change of the licensed scope just logged. */
    onLicenceChange?: (change: LicenceChange) => Promise<void>;
  } = {},
): Promise<SportHealthView[]> {
  const now = options.now ?? Date.now();
  const [feed, polls, cadenceRows, facts, latest, licence, scopeChanges] = await Promise.all([
    readFeed(db),
    recentPolls(db, now - DAY_MS),
    readCadences(db),
    sportFacts(db, now, (sport, record) => overdueKind(record, rulesFor(sport), now)),
    latestStates(db),
    options.licence !== undefined ? options.licence : licenceOrNull().catch(() => null),
    licenceChanges(db, now - 7 * DAY_MS),
  ]);
  // A sport the licence listed and no longer does is judged (down, on the licence's side) even when the feed
  // holds none of its records: losing it is news whether or not it had picks in the window.
  if (licence?.sports) {
    const licensedNow = new Set(licence.sports.map((sport) => sport.toLowerCase()));
    for (const sport of new Set(scopeChanges.flatMap((change) => change.before.sports ?? [])))
      if (!licensedNow.has(sport.toLowerCase()) && !facts.some((f) => f.sport === sport)) facts.push(noFacts(sport));
  }
  const cadences = Object.fromEntries(cadenceRows.map((c) => [c.sport, c.seconds]));
  // A sport (or league) with an agreed cadence, or a sport with a logged state, is judged even when the feed holds none of its records now.
  const sportKeys = Object.keys(cadences).filter((key) => !key.includes(' / '));
  for (const sport of new Set([...sportKeys, ...latest.keys()])) if (!facts.some((f) => f.sport === sport)) facts.push(noFacts(sport));
  for (const key of Object.keys(cadences).filter((k) => k.includes(' / '))) {
    const [sport = '', league = ''] = key.split(' / ');
    let f = facts.find((x) => x.sport === sport);
    if (!f) facts.push((f = noFacts(sport)));
    if (!f.leagues.some((l) => l.league === league)) f.leagues.push({ league, watched: 0, lastChangeMs: null, overdue: 0 });
  }
  const states = feedHealth(
    {
      now,
      pollMs,
      leaseHeld: feed.holder !== null && feed.leaseExpires > now,
      lastCompleteMs: feed.completeMs,
      polls,
      licensedSports: licence?.sports ?? null,
      cadences,
    },
    facts,
  );
  const changed: StateEntry[] = [];
  const views = states.map((health): SportHealthView => {
    const before = latest.get(health.sport);
    const same = before && before.state === health.state && before.side === health.side;
    if (!same) changed.push({ ...health, at: now });
    const f = facts.find((x) => x.sport === health.sport)!;
    const { sport: _sport, lastChangeMs, leagues, ...figures } = f;
    return {
      ...health,
      since: new Date(same ? before.at : now).toISOString(),
      ...figures,
      lastChangeAt: iso(lastChangeMs),
      cadenceSeconds: cadences[health.sport] ?? null,
      leagues: leagues.map((l) => ({
        league: l.league,
        watched: l.watched,
        lastChangeAt: iso(l.lastChangeMs),
        overdue: l.overdue,
        cadenceSeconds: cadences[leagueKey(health.sport, l.league)] ?? null,
      })),
    };
  });
  if (options.record) {
    await recordStates(db, changed);
    if (changed.length && options.onChanged) await options.onChanged(changed, latest);
    const scopeChange = licence
      ? await noteLicenceScope(db, licenceScope(licence), now, (before, after) => scopeDifferences(before, after).length > 0)
      : null;
    if (scopeChange && options.onLicenceChange) await options.onLicenceChange(scopeChange);
  }
  return views;
}

const WEEK_MS = 7 * DAY_MS;
const PERIOD = 'changes.poll-ms';

/** The polling instances' period, written when one starts: an instance that does not poll judges by it. */
export async function notePollPeriod(db: Db, pollMs: number): Promise<void> {
  await writeMeta(db, PERIOD, String(pollMs));
}

/** This instance's own period when it polls; otherwise the one the polling instances wrote; null when none ever polled. */
export async function feedPeriodMs(db: Db, ownMs: number | null): Promise<number | null> {
  if (ownMs !== null) return ownMs;
  const written = Number(await readMeta(db, PERIOD));
  return Number.isFinite(written) && written > 0 ? written : null;
}

/** What /health shows: each sport's health and the last week's changes of state, or the error to show. */
export async function healthForPage(ownPollMs: number | null) {
  const now = Date.now();
  try {
    const pollMs = await fromStore((db) => feedPeriodMs(db, ownPollMs));
    const [sports, history, licence, feed] = await fromStore((db) =>
      Promise.all([
        sportsHealth(db, pollMs, { now }),
        stateHistory(db, now - WEEK_MS),
        recentLicenceChanges(db, now),
        pollerAndUpstream(db, pollMs, now),
      ]),
    );
    return { ok: true as const, now, from: now - WEEK_MS, sports, history, licenceChanges: licence, ...feed };
  } catch (error) {
    return { ok: false as const, error: toAppError(error).toJSON() };
  }
}

/** The overview's line: sports whose last logged state is not healthy (cheap: no facts gathered); null if the store is away. */
export async function unhealthySports(): Promise<StateEntry[] | null> {
  try {
    const latest = await fromStore(latestStates);
    return [...latest.values()].filter((e) => e.state !== 'healthy').sort((a, b) => a.sport.localeCompare(b.sport));
  } catch {
    return null;
  }
}

/** The licence's changes of scope over the last 30 days, newest first, each with what changed. */
export async function recentLicenceChanges(db: Db, now = Date.now()) {
  return (await licenceChanges(db, now - 30 * DAY_MS)).map((change) => ({
    at: new Date(change.at).toISOString(),
    before: change.before,
    after: change.after,
    changed: scopeDifferences(change.before, change.after),
  }));
}
