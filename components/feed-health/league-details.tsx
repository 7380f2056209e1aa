import type { SportHealthView } from '@/lib/feed-health';
import { leagueKey } from '@/lib/feed-health/compute';
import { CadenceField } from '@/components/feed-health/cadence-field';
import { UtcTime } from '@/components/utc-time';

const seconds = (s: number | null) => (s === null ? 'none agreed' : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`);

/** A sport's leagues, folded under its name: records watched, the last new or changed one, picks overdue, and the cadence agreed per league. */
export function LeagueDetails({ sport, admin }: { sport: SportHealthView; admin: boolean }) {
  if (sport.leagues.length === 0) return null;
  return (
    <details className="mt-1 text-xs" data-leagues={sport.sport}>
      <summary className="cursor-pointer text-slate-600">
        {sport.leagues.length} league{sport.leagues.length === 1 ? '' : 's'}
      </summary>
      <table className="mt-1">
        <caption className="sr-only">Leagues of {sport.sport}</caption>
        <thead>
          <tr className="text-left text-slate-600">
            <th className="pr-3 font-medium">League</th>
            <th className="pr-3 text-right font-medium">Watched</th>
            <th className="pr-3 font-medium">Last new or changed</th>
            <th className="pr-3 text-right font-medium">Overdue</th>
            <th className="font-medium">Agreed cadence</th>
          </tr>
        </thead>
        <tbody>
          {sport.leagues.map((l) => (
            <tr key={l.league} data-league={l.league}>
              <td className="pr-3">{l.league}</td>
              <td className="pr-3 text-right tabular-nums">{l.watched}</td>
              <td className="pr-3">
                <UtcTime iso={l.lastChangeAt} />
              </td>
              <td className="pr-3 text-right tabular-nums">{l.overdue}</td>
              <td>
                {admin ? <CadenceField sport={leagueKey(sport.sport, l.league)} seconds={l.cadenceSeconds} /> : seconds(l.cadenceSeconds)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
