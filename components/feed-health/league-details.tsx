import type { SportHealthView } from '@/lib/feed-health';
import { leagueKey } from '@/lib/feed-health/compute';
import { CadenceField } from '@/components/feed-health/cadence-field';
import { UtcTime } from '@/components/utc-time';
import { DataTable, type Column } from '@/components/ui/data-table';

type League = SportHealthView['leagues'][number];

const seconds = (s: number | null) => (s === null ? 'none agreed' : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`);

/** A sport's leagues, folded under its name: records watched, the last new or changed one, picks overdue, and the cadence agreed per league. */
export function LeagueDetails({ sport, admin }: { sport: SportHealthView; admin: boolean }) {
  if (sport.leagues.length === 0) return null;
  // Cells are named `league-…`: the sport's own row, around this fold, has cells named like them.
  const columns: Column<League>[] = [
    { id: 'league-name', header: 'League', rowHeader: true, cell: (l) => l.league },
    { id: 'league-watched', header: 'Watched', align: 'right', cell: (l) => l.watched },
    { id: 'league-last-change', header: 'Last new or changed', nowrap: true, cell: (l) => <UtcTime iso={l.lastChangeAt} /> },
    { id: 'league-overdue', header: 'Overdue', align: 'right', cell: (l) => l.overdue },
    {
      id: 'league-cadence',
      header: 'Agreed cadence',
      cell: (l) =>
        admin ? <CadenceField sport={leagueKey(sport.sport, l.league)} seconds={l.cadenceSeconds} /> : seconds(l.cadenceSeconds),
    },
  ];
  return (
    <details className="mt-1 text-xs" data-leagues={sport.sport}>
      <summary className="cursor-pointer text-slate-600">
        {sport.leagues.length} league{sport.leagues.length === 1 ? '' : 's'}
      </summary>
      <div className="mt-1">
        <DataTable
          testId={`leagues-${sport.sport}`}
          frame="bare"
          size="small"
          caption={`Leagues of ${sport.sport}`}
          columns={columns}
          rows={sport.leagues}
          rowKey={(l) => l.league}
          rowData={(l) => ({ 'data-league': l.league })}
          cards
        />
      </div>
    </details>
  );
}
