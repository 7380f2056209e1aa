import { PICK_RESULTS, PICK_STATUSES } from '../picks-api/vocabulary';
import { DAY_MS } from '../time';
import type { LicenceSummary } from '../vocabulary/licence';
import { PICK_FIELD_PATHS, valueAtPath, type Pick } from '../picks-api/schemas';

/**
 * Coverage: what a licence promises against what is delivered, computed in one pass over the picks of a
 * date range. Holds counters only (per league, per day, per field, per bucket), never the records, so
 * memory is bounded by leagues × days whatever the number of picks. Pure: no I/O.
 */

export interface CoverageRow {
  sport: string;
  league: string;
  /** true/false when /me names leagues (or sports), null when it states nothing. */
  licensed: boolean | null;
  total: number;
  byStatus: Record<(typeof PICK_STATUSES)[number] | 'other', number>;
  playerPicks: number;
  lastPublishedAt: string | null;
  emptyDays: string[];
  results: Record<(typeof PICK_RESULTS)[number], number>;
}

export interface CalibrationBucket {
  /** Lower and upper bound of stated probability, on a 0–1 scale. */
  from: number;
  to: number;
  settled: number;
  wins: number;
  /** wins / settled (push and void excluded), null without settled picks. */
  winRate: number | null;
}

export interface CoverageReport {
  range: { from: string; to: string; days: string[] };
  records: number;
  rows: CoverageRow[];
  /** licensedNotDelivered is null when it cannot be told (a sport filter: /me's league list does not say which sport). */
  gaps: { licensedNotDelivered: string[] | null; deliveredNotLicensed: string[]; licenceStatesLeagues: boolean };
  timeline: { day: string; bySport: Record<string, number>; total: number }[];
  sports: string[];
  fieldCoverage: { field: string; present: number; share: number }[];
  tiers: { tier: string; wins: number; losses: number; hitRate: number | null }[];
  calibration: { scale: 'unit' | 'percent' | 'none'; buckets: CalibrationBucket[] };
}

interface RowState {
  sport: string;
  league: string;
  total: number;
  byStatus: CoverageRow['byStatus'];
  playerPicks: number;
  lastPublishedAt: string | null;
  days: Set<string>;
  results: CoverageRow['results'];
}

/** The UTC days [from, to) covers, as YYYY-MM-DD. */
export function daysOf(fromIso: string, toIso: string): string[] {
  const days: string[] = [];
  for (let t = Math.floor(Date.parse(fromIso) / DAY_MS) * DAY_MS; t < Date.parse(toIso); t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

export function createCoverageAccumulator(
  range: { from: string; to: string },
  licence: LicenceSummary | null,
  scope: { sport?: string; league?: string } = {},
) {
  const days = daysOf(range.from, range.to);
  const rows = new Map<string, RowState>();
  const timeline = new Map<string, Map<string, number>>();
  const present = new Map<string, number>(PICK_FIELD_PATHS.map((path) => [path, 0]));
  const tiers = new Map<string, { wins: number; losses: number }>();
  // Probability's scale is not documented: bucket both ways as we go, choose by the largest value seen.
  const unit = Array.from({ length: 10 }, () => ({ settled: 0, wins: 0 }));
  const percent = Array.from({ length: 10 }, () => ({ settled: 0, wins: 0 }));
  let maxProbability = -Infinity;
  let records = 0;

  function add(pick: Pick) {
    records += 1;
    const sport = pick.sport ?? '(no sport)';
    const league = pick.league ?? '(no league)';
    const key = `${sport}\u0000${league}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        sport,
        league,
        total: 0,
        byStatus: { upcoming: 0, live: 0, settled: 0, void: 0, other: 0 },
        playerPicks: 0,
        lastPublishedAt: null,
        days: new Set(),
        results: { win: 0, loss: 0, push: 0, void: 0 },
      };
      rows.set(key, row);
    }
    row.total += 1;
    const status = (PICK_STATUSES as readonly string[]).includes(pick.status ?? '')
      ? (pick.status as (typeof PICK_STATUSES)[number])
      : 'other';
    row.byStatus[status] += 1;
    if (pick.isPlayerPick === true) row.playerPicks += 1;
    if (pick.publishedAt && (!row.lastPublishedAt || pick.publishedAt > row.lastPublishedAt)) row.lastPublishedAt = pick.publishedAt;
    const day = pick.eventDate?.slice(0, 10);
    if (day) {
      row.days.add(day);
      const bySport = timeline.get(day) ?? new Map<string, number>();
      bySport.set(sport, (bySport.get(sport) ?? 0) + 1);
      timeline.set(day, bySport);
    }
    for (const path of PICK_FIELD_PATHS) {
      const value = valueAtPath(pick, path);
      if (value !== null && value !== undefined) present.set(path, (present.get(path) ?? 0) + 1);
    }
    if (pick.status === 'settled' && pick.result && (PICK_RESULTS as readonly string[]).includes(pick.result)) {
      const result = pick.result as (typeof PICK_RESULTS)[number];
      row.results[result] += 1;
      if (result === 'win' || result === 'loss') {
        const tier = tiers.get(pick.confidenceTier ?? '(no tier)') ?? { wins: 0, losses: 0 };
        tier[result === 'win' ? 'wins' : 'losses'] += 1;
        tiers.set(pick.confidenceTier ?? '(no tier)', tier);
        const p = pick.probability;
        if (typeof p === 'number' && Number.isFinite(p) && p >= 0) {
          maxProbability = Math.max(maxProbability, p);
          const won = result === 'win' ? 1 : 0;
          const u = unit[Math.min(9, Math.floor(p * 10))];
          if (u) {
            u.settled += 1;
            u.wins += won;
          }
          const c = percent[Math.min(9, Math.floor(p / 10))];
          if (c) {
            c.settled += 1;
            c.wins += won;
          }
        }
      }
    }
  }

  function result(): CoverageReport {
    const licensedLeagues = licence?.leagues ?? null;
    const licensedSports = licence?.sports ?? null;
    const isLicensed = (sport: string, league: string): boolean | null => {
      if (licensedLeagues) return licensedLeagues.includes(league) && (!licensedSports || licensedSports.includes(sport));
      if (licensedSports) return licensedSports.includes(sport);
      return null;
    };
    const outRows: CoverageRow[] = [...rows.values()]
      .map((row) => ({
        sport: row.sport,
        league: row.league,
        licensed: isLicensed(row.sport, row.league),
        total: row.total,
        byStatus: row.byStatus,
        playerPicks: row.playerPicks,
        lastPublishedAt: row.lastPublishedAt,
        emptyDays: days.filter((day) => !row.days.has(day)),
        results: row.results,
      }))
      .sort((a, b) => a.sport.localeCompare(b.sport) || a.league.localeCompare(b.league));
    const delivered = new Set(outRows.map((row) => row.league));
    const sports = [...new Set(outRows.map((row) => row.sport))].sort();
    const scale = maxProbability === -Infinity ? 'none' : maxProbability > 1 ? 'percent' : 'unit';
    const chosen = scale === 'percent' ? percent : unit;
    return {
      range: { from: range.from, to: range.to, days },
      records,
      rows: outRows,
      gaps: {
        licensedNotDelivered:
          scope.sport && !scope.league
            ? null
            : (licensedLeagues ?? []).filter((league) => (!scope.league || league === scope.league) && !delivered.has(league)),
        deliveredNotLicensed: licensedLeagues ? outRows.filter((row) => row.licensed === false).map((row) => row.league) : [],
        licenceStatesLeagues: licensedLeagues !== null,
      },
      timeline: days.map((day) => {
        const bySport = Object.fromEntries(timeline.get(day) ?? []);
        return { day, bySport, total: Object.values(bySport).reduce((a, b) => a + b, 0) };
      }),
      sports,
      fieldCoverage: PICK_FIELD_PATHS.map((field) => ({
        field,
        present: present.get(field) ?? 0,
        share: records ? (present.get(field) ?? 0) / records : 0,
      })),
      tiers: [...tiers]
        .map(([tier, t]) => ({ tier, ...t, hitRate: t.wins + t.losses ? t.wins / (t.wins + t.losses) : null }))
        .sort((a, b) => a.tier.localeCompare(b.tier)),
      calibration: {
        scale,
        buckets: chosen.map((b, i) => ({
          from: i / 10,
          to: (i + 1) / 10,
          settled: b.settled,
          wins: b.wins,
          winRate: b.settled ? b.wins / b.settled : null,
        })),
      },
    };
  }

  return {
    add,
    result,
    get records() {
      return records;
    },
  };
}
