import { PICK_RESULTS, PICK_STATUSES } from '../picks-api/vocabulary';
import type { Pick } from '../picks-api/schemas';
import type { z } from 'zod';
import type { outcomesSchema, recordsSummarySchema } from './answers';

/**
 * What a set of records adds up to, for the /results summary and the overview's tiles: how many, by status
 * and result, the hit rate (wins over wins and losses: a push or a void is neither), by tier and by league,
 * and how many fall on each UTC day of their event. Counters only, never the records; pure, no I/O.
 * At most `cap` records are counted: `complete` says whether the set ended before that.
 */

type Result = (typeof PICK_RESULTS)[number];

export type Outcomes = z.infer<typeof outcomesSchema>;
export type RecordsSummary = z.infer<typeof recordsSummarySchema>;

const NO_TIER = '(no tier)';
const NO_LEAGUE = '(no league)';
const isResult = (value: unknown): value is Result => (PICK_RESULTS as readonly unknown[]).includes(value);

function outcomes(): Outcomes {
  return { records: 0, win: 0, loss: 0, push: 0, void: 0, hitRate: null };
}

function count(into: Outcomes, result: Result | null) {
  into.records += 1;
  if (result) into[result] += 1;
}

const withRate = <T extends Outcomes>(o: T): T => ({ ...o, hitRate: o.win + o.loss ? o.win / (o.win + o.loss) : null });

export function createSummary(cap: number) {
  const total = outcomes();
  const byStatus: RecordsSummary['byStatus'] = { upcoming: 0, live: 0, settled: 0, void: 0, other: 0 };
  const tiers = new Map<string, Outcomes>();
  const leagues = new Map<string, Outcomes>();
  const byDay: Record<string, number> = {};
  let unsettled = 0;
  return {
    /** Counts one record; false once the cap is reached (the caller stops walking). */
    add(pick: Pick): boolean {
      if (total.records >= cap) return false;
      const result = isResult(pick.result) ? pick.result : null;
      count(total, result);
      if (!result) unsettled += 1;
      const status = (PICK_STATUSES as readonly unknown[]).includes(pick.status) ? (pick.status as keyof typeof byStatus) : 'other';
      byStatus[status] += 1;
      const tier = typeof pick.confidenceTier === 'string' && pick.confidenceTier ? pick.confidenceTier : NO_TIER;
      count(tiers.get(tier) ?? tiers.set(tier, outcomes()).get(tier)!, result);
      const league = typeof pick.league === 'string' && pick.league ? pick.league : NO_LEAGUE;
      count(leagues.get(league) ?? leagues.set(league, outcomes()).get(league)!, result);
      const day =
        typeof pick.eventDate === 'string' && !Number.isNaN(Date.parse(pick.eventDate))
          ? new Date(pick.eventDate).toISOString().slice(0, 10)
          : null;
      if (day) byDay[day] = (byDay[day] ?? 0) + 1;
      return true;
    },
    result(complete: boolean): RecordsSummary {
      return {
        ...withRate(total),
        complete,
        cap,
        byStatus,
        unsettled,
        // Tiers in their own order (A before B), leagues by how many records they hold.
        tiers: [...tiers].map(([tier, o]) => ({ tier, ...withRate(o) })).sort((a, b) => a.tier.localeCompare(b.tier)),
        leagues: [...leagues]
          .map(([league, o]) => ({ league, ...withRate(o) }))
          .sort((a, b) => b.records - a.records || a.league.localeCompare(b.league)),
        byDay,
      };
    },
  };
}

/** A rate on a 0–1 scale as a percentage with one decimal, or a dash when there is none. */
export const percent = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);
