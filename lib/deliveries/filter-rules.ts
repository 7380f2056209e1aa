import 'server-only';
import { CHANGE_KINDS } from '../changes/reconcile';
import { toUtcInstant } from '../picks-api/filters';
import { licenceOrNull } from '../picks-api/portal';
import { PICK_RESULTS, PICK_STATUSES } from '../picks-api/vocabulary';
import { fromStore } from '../store';
import { watchedScope } from '../store/changes';
import type { Vocabulary } from '../sport-leagues';
import { resolveRelative, type DeliveryKind } from './input';
import { nearest } from '../nearest';
import { listOf } from '../plural';
import { exampleDay } from '../time';
import { searchParamsSchema } from '../records/search';

/**
 * What a delivery's filters may say, and every way they can be wrong, found at once. Sports and leagues
 * come from the licence (`/me`) where it lists them, else from what the change feed has seen; the feed
 * also says which leagues belong to which sport. A value that matches nothing is refused naming what is
 * allowed, with the nearest name suggested, so a typo can never become a delivery of empty files.
 */

export type { Vocabulary } from '../sport-leagues';

const FILTERS: Record<DeliveryKind, readonly string[]> = {
  // q, sort and dir: a searched or ordered set, written from the portal's index (docs/search.md).
  picks: ['sport', 'league', 'status', 'result', 'from', 'to', 'q', 'sort', 'dir'],
  results: ['sport', 'league', 'result', 'from', 'to', 'q', 'sort', 'dir'],
  changes: ['kind', 'sport', 'league'],
};

let cached: { at: number; scope: Record<string, string[]> } | undefined;

/** The leagues the change feed has seen under each sport (kept a minute per process). */
export async function seenScope(): Promise<Record<string, string[]>> {
  if (cached && Date.now() - cached.at < 60_000) return cached.scope;
  try {
    cached = { at: Date.now(), scope: await fromStore(watchedScope) };
  } catch {
    return cached?.scope ?? {};
  }
  return cached.scope;
}

export async function filterVocabulary(): Promise<Vocabulary> {
  const [licence, seen] = await Promise.all([licenceOrNull(), seenScope()]);
  const seenSports = Object.keys(seen).sort();
  const seenLeagues = [...new Set(Object.values(seen).flat())].sort();
  return {
    sports: licence?.sports ?? (seenSports.length ? seenSports : null),
    leagues: licence?.leagues ?? (seenLeagues.length ? seenLeagues : null),
    leaguesBySport: seen,
    unread: licence === null,
  };
}

/**
 * For the records and coverage filter forms: the sports and leagues the licence lists (none: free text, as
 * any value may be asked), with the feed's leagues per sport to narrow the league list.
 */
export async function licenceVocabulary(): Promise<Vocabulary> {
  const [licence, seen] = await Promise.all([licenceOrNull(), seenScope()]);
  return { sports: licence?.sports ?? null, leagues: licence?.leagues ?? null, leaguesBySport: seen, unread: licence === null };
}

function choice(value: string, allowed: readonly string[], what: string): string | null {
  if (allowed.includes(value)) return null;
  const near = nearest(value, allowed);
  return `is "${value}", not ${what}.${near ? ` Did you mean "${near}"?` : ''} Allowed: ${listOf(allowed, 25)}.`;
}

const WORDS: Record<string, string> = { yesterday: 'today-1d', tomorrow: 'today+1d', 'last week': 'today-7d' };

function dateProblem(value: string, bound: 'from' | 'to', nowMs: number): string | null {
  if (toUtcInstant(resolveRelative(value, nowMs), bound) !== null) return null;
  const instead = WORDS[value.trim().toLowerCase()];
  return `is "${value}", not a date.${instead ? ` Did you mean "${instead}"?` : ''} Use a UTC day (${exampleDay(-7, nowMs)}), an ISO 8601 timestamp, or a date relative to each run: today, now, today-7d, now-24h, today+1d.`;
}

/** Every problem of a delivery's filters, by field (`filters.sport`, …); empty when they are good. */
export function filterProblems(kind: DeliveryKind, filters: Record<string, string>, vocabulary: Vocabulary, nowMs: number) {
  const problems: Record<string, string> = {};
  const set = (key: string, problem: string | null) => {
    if (problem) problems[`filters.${key}`] = problem;
  };
  for (const key of Object.keys(filters))
    if (!FILTERS[kind].includes(key)) set(key, `is not a filter of a ${kind} delivery (its filters: ${FILTERS[kind].join(', ')})`);
  const { sport, league, status, result, from, to, kind: changeKind } = filters;
  if (sport && vocabulary.sports) set('sport', choice(sport, vocabulary.sports, 'a licensed sport'));
  if (league && vocabulary.leagues) set('league', choice(league, vocabulary.leagues, 'a licensed league'));
  if (sport && league && !problems['filters.sport'] && !problems['filters.league']) {
    const under = Object.entries(vocabulary.leaguesBySport).filter(([, leagues]) => leagues.includes(league));
    if (under.length > 0 && !under.some(([s]) => s === sport))
      set('league', `is "${league}", a ${under.map(([s]) => s).join(' and ')} league, not one of ${sport}.`);
  }
  if (status !== undefined && kind === 'picks') set('status', choice(status, PICK_STATUSES, 'a status'));
  if (result !== undefined && kind !== 'changes') set('result', choice(result, PICK_RESULTS, 'a result'));
  if (changeKind !== undefined && kind === 'changes') set('kind', choice(changeKind, CHANGE_KINDS, 'a kind of change'));
  if (kind !== 'changes') {
    const search = searchParamsSchema.safeParse(
      Object.fromEntries(['q', 'sort', 'dir'].flatMap((k) => (filters[k] !== undefined ? [[k, filters[k]]] : []))),
    );
    if (!search.success) for (const issue of search.error.issues) set(String(issue.path[0]), issue.message);
  }
  if (from !== undefined && kind !== 'changes') set('from', dateProblem(from, 'from', nowMs));
  if (to !== undefined && kind !== 'changes') set('to', dateProblem(to, 'to', nowMs));
  if (from && to && !problems['filters.from'] && !problems['filters.to']) {
    const start = toUtcInstant(resolveRelative(from, nowMs), 'from')!;
    const end = toUtcInstant(resolveRelative(to, nowMs), 'to')!;
    if (start >= end) set('to', `must be after from (${from} is ${start}, ${to} is ${end})`);
  }
  return problems;
}
