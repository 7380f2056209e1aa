import type { Kysely } from 'kysely';
import {
  noFacts,
  type HealthSide,
  type HealthState,
  type LicenceScope,
  type PollFacts,
  type UpstreamAnswers,
  type SportFacts,
} from '../vocabulary/feed-health';
import { readMeta, writeMeta } from './meta';
import type { Database } from './schema';

type Db = Kysely<Database>;
const DAY_MS = 86_400_000;

/** The store's side of feed health (lib/feed-health): poll outcomes, cadences, state changes, and the facts per sport. */

export async function recordPoll(db: Db, poll: PollFacts & { instance: string }): Promise<void> {
  await db
    .insertInto('feed_polls')
    .values({
      id: `${poll.at}:${poll.instance}`,
      at_ms: poll.at,
      outcome: poll.outcome,
      code: poll.code,
      answers: poll.answers ? JSON.stringify(poll.answers) : null,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** The newest polls first (at most `most`, none older than `sinceMs`). */
export async function recentPolls(db: Db, sinceMs: number, most = 24): Promise<PollFacts[]> {
  const rows = await db.selectFrom('feed_polls').selectAll().where('at_ms', '>=', sinceMs).orderBy('at_ms', 'desc').limit(most).execute();
  return rows.map((row) => ({
    at: Number(row.at_ms),
    outcome: row.outcome === 'complete' ? 'complete' : 'failed',
    code: row.code,
    answers: row.answers ? (JSON.parse(row.answers) as UpstreamAnswers) : {},
  }));
}

export async function readCadences(db: Db): Promise<{ sport: string; seconds: number; updatedBy: string; updatedAt: string }[]> {
  const rows = await db.selectFrom('feed_cadences').selectAll().orderBy('sport').execute();
  return rows.map((row) => ({ sport: row.sport, seconds: Number(row.seconds), updatedBy: row.updated_by, updatedAt: row.updated_at }));
}

/** Sets (or, with null, removes) the agreed cadence of each sport named. */
export async function setCadences(db: Db, cadences: Record<string, number | null>, by: string, at = new Date()): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (const [sport, seconds] of Object.entries(cadences)) {
      if (seconds === null) await tx.deleteFrom('feed_cadences').where('sport', '=', sport).execute();
      else
        await tx
          .insertInto('feed_cadences')
          .values({ sport, seconds, updated_by: by, updated_at: at.toISOString() })
          .onConflict((oc) => oc.column('sport').doUpdateSet({ seconds, updated_by: by, updated_at: at.toISOString() }))
          .execute();
    }
  });
}

export interface StateEntry {
  sport: string;
  state: HealthState;
  side: HealthSide | null;
  reason: string;
  at: number;
}

const toEntry = (row: { sport: string; state: string; side: string | null; reason: string; at_ms: number }): StateEntry => ({
  sport: row.sport,
  state: row.state as HealthState,
  side: row.side as HealthSide | null,
  reason: row.reason,
  at: Number(row.at_ms),
});

/** Each sport's current state: its latest entry. */
export async function latestStates(db: Db): Promise<Map<string, StateEntry>> {
  const rows = await db
    .selectFrom('feed_health_log as l')
    .selectAll('l')
    .where('l.at_ms', '=', (eb) =>
      eb
        .selectFrom('feed_health_log as m')
        .select((e) => e.fn.max('m.at_ms').as('at'))
        .whereRef('m.sport', '=', 'l.sport'),
    )
    .execute();
  return new Map(rows.map((row) => [row.sport, toEntry(row)]));
}

export async function recordStates(db: Db, entries: StateEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('feed_health_log')
    .values(entries.map((e) => ({ id: `${e.sport}:${e.at}`, sport: e.sport, state: e.state, side: e.side, reason: e.reason, at_ms: e.at })))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** State changes since `sinceMs`, with the one in force then (so a timeline starts with a state), oldest first. */
export async function stateHistory(db: Db, sinceMs: number): Promise<StateEntry[]> {
  const rows = await db.selectFrom('feed_health_log').selectAll().where('at_ms', '>=', sinceMs).orderBy('at_ms').execute();
  const before = await db
    .selectFrom('feed_health_log as l')
    .selectAll('l')
    .where('l.at_ms', '=', (eb) =>
      eb
        .selectFrom('feed_health_log as m')
        .select((e) => e.fn.max('m.at_ms').as('at'))
        .whereRef('m.sport', '=', 'l.sport')
        .where('m.at_ms', '<', sinceMs),
    )
    .execute();
  return [...before, ...rows].map(toEntry);
}

/** Drops poll outcomes and state changes older than `beforeMs`, keeping each sport's latest state. */
export async function pruneFeedHealth(db: Db, beforeMs: number): Promise<void> {
  await db.deleteFrom('feed_polls').where('at_ms', '<', beforeMs).execute();
  const keep = [...(await latestStates(db)).values()].map((e) => `${e.sport}:${e.at}`);
  let old = db.deleteFrom('feed_health_log').where('at_ms', '<', beforeMs);
  if (keep.length) old = old.where('id', 'not in', keep);
  await old.execute();
}

/** Which way a record is overdue in its lifecycle, by feed health's rule (lib/feed-health/compute.ts), or null. */
export type Lateness = (sport: string, record: { status: string | null; eventMs: number | null }) => keyof SportFacts['overdue'] | null;

/** What the poller has seen of each sport: records watched, overdue by `lateness`, the last day's changes. */
export async function sportFacts(db: Db, now: number, lateness: Lateness): Promise<SportFacts[]> {
  const facts = new Map<string, SportFacts>();
  const of = (sport: string) => {
    let f = facts.get(sport);
    if (!f) {
      f = noFacts(sport);
      facts.set(sport, f);
    }
    return f;
  };
  const leagueOf = (sport: string, league: string) => {
    const f = of(sport);
    let l = f.leagues.find((x) => x.league === league);
    if (!l) f.leagues.push((l = { league, watched: 0, lastChangeMs: null, overdue: 0 }));
    return l;
  };
  const watched = await db.selectFrom('watched').select(['status', 'event_ms', 'display']).where('withdrawn', '=', 0).execute();
  for (const row of watched) {
    const { sport, league } = JSON.parse(row.display) as { sport?: string; league?: string };
    if (!sport) continue;
    const f = of(sport);
    f.watched += 1;
    const late = lateness(sport, { status: row.status, eventMs: row.event_ms === null ? null : Number(row.event_ms) });
    if (late) f.overdue[late] += 1;
    if (league) {
      const l = leagueOf(sport, league);
      l.watched += 1;
      if (late) l.overdue += 1;
    }
  }
  const last = await db
    .selectFrom('changes')
    .select(['sport', 'league', (eb) => eb.fn.max('detected_at').as('at')])
    .where('sport', 'is not', null)
    .groupBy(['sport', 'league'])
    .execute();
  for (const row of last) {
    if (!row.sport || !row.at) continue;
    const at = Date.parse(String(row.at));
    const f = of(row.sport);
    f.lastChangeMs = Math.max(f.lastChangeMs ?? 0, at);
    if (row.league) leagueOf(row.sport, row.league).lastChangeMs = at;
  }
  const day = await db
    .selectFrom('changes')
    .select(['sport', 'kinds', 'detected_at', 'before', 'after'])
    .where('detected_at', '>=', new Date(now - DAY_MS).toISOString())
    .where('sport', 'is not', null)
    .execute();
  const lags = new Map<string, number[]>();
  for (const row of day) {
    const f = of(row.sport!);
    const kinds = row.kinds.split(' ');
    if (kinds.includes('withdrawn')) f.withdrawn24h += 1;
    const before = row.before ? (JSON.parse(row.before) as { result?: string | null }) : null;
    if (kinds.includes('result') && before?.result) f.resettled24h += 1;
    const after = row.after ? (JSON.parse(row.after) as { publishedAt?: string | null }) : null;
    const published = after?.publishedAt ? Date.parse(after.publishedAt) : NaN;
    if (kinds.includes('new') && Number.isFinite(published)) {
      const list = lags.get(row.sport!) ?? [];
      list.push(Math.max(0, (Date.parse(row.detected_at) - published) / 1000));
      lags.set(row.sport!, list);
    }
  }
  for (const [sport, list] of lags) {
    list.sort((a, b) => a - b);
    of(sport).publicationLagSeconds = Math.round(list[Math.floor((list.length - 1) / 2)]!);
  }
  for (const f of facts.values()) f.leagues.sort((a, b) => a.league.localeCompare(b.league));
  return [...facts.values()];
}

export interface LicenceChange {
  at: number;
  before: LicenceScope;
  after: LicenceScope;
}

/**
 * Compares the scope /me states now with the one last seen: the first is only kept (nothing to compare), one
 * that `differs` (feed health's rule) is logged as a change and kept. Called by the polling instance after each poll.
 */
export async function noteLicenceScope(
  db: Db,
  scope: LicenceScope,
  at: number,
  differs: (before: LicenceScope, after: LicenceScope) => boolean,
): Promise<LicenceChange | null> {
  const known = await readMeta(db, 'licence-scope');
  const now = JSON.stringify(scope);
  if (known === now) return null;
  await writeMeta(db, 'licence-scope', now);
  if (known === undefined || known === null) return null;
  const before = JSON.parse(known) as LicenceScope;
  if (!differs(before, scope)) return null;
  await db
    .insertInto('licence_changes')
    .values({ id: String(at), at_ms: at, before: known, after: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return { at, before, after: scope };
}

export async function licenceChanges(db: Db, sinceMs: number): Promise<LicenceChange[]> {
  const rows = await db.selectFrom('licence_changes').selectAll().where('at_ms', '>=', sinceMs).orderBy('at_ms', 'desc').execute();
  return rows.map((row) => ({
    at: Number(row.at_ms),
    before: JSON.parse(row.before) as LicenceScope,
    after: JSON.parse(row.after) as LicenceScope,
  }));
}

/** Records whose result changed after a first settlement, as the poll that started at `detectedAt` (ISO) found them. */
export async function resettlementsOf(
  db: Db,
  detectedAt: string,
): Promise<{ id: string; sport: string | null; was: string; now: string | null }[]> {
  const rows = await db
    .selectFrom('changes')
    .select(['pick_id', 'sport', 'before', 'after'])
    .where('detected_at', '=', detectedAt)
    .where('kinds', 'like', '%result%')
    .orderBy('seq')
    .execute();
  return rows.flatMap((row) => {
    const was = row.before ? (JSON.parse(row.before) as { result?: string | null }).result : null;
    const now = row.after ? ((JSON.parse(row.after) as { result?: string | null }).result ?? null) : null;
    return was ? [{ id: row.pick_id, sport: row.sport, was, now }] : [];
  });
}
