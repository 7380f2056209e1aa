'use client';

import {
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
  type VisibilityState,
} from '@tanstack/react-table';
import { useEffect, useState, type ReactNode } from 'react';
import { formatOdds, formatProbability, marketLabel, pickHref, type PickRow, type ProbabilityScale } from '@/lib/picks-api/pick-view';
import { Logo } from '@/components/records/logo';
import { StatusBadge } from '@/components/ui/badge';
import { UtcTime } from '@/components/utc-time';
import { buttonClass } from '@/components/ui/button';
import { savePreferences } from '@/components/preferences';
import { cardClass } from '@/components/ui/card';

/**
 * The picks and results table. The rows arrive once as data (the RSC payload carries the props, not a tree of
 * elements) and render as plain markup: no component with state per cell, no client <Link> per row (it would
 * hydrate and prefetch 50–200 pages); times and broken logos are finished by <AfterLoad>. Cell styles come from
 * `[data-records]` rules in globals.css rather than classes repeated in every cell.
 */

type Cell = (row: PickRow, scale: ProbabilityScale) => ReactNode;
const dash = (value: string | number | null) => (value === null || value === '' ? '—' : value);

/** One line: the competition's logo, then home vs away with theirs; the whole is the link to the pick's page. */
const EVENT: Cell = (r) => {
  const teams = (
    <>
      <Logo src={r.competitionLogo} name={r.competition ?? r.league} shape="square" />
      <Logo src={r.homeLogo} name={r.homeTeam} />
      <b>{r.homeTeam ?? '—'}</b>
      <span className="m">vs</span>
      <Logo src={r.awayLogo} name={r.awayTeam} />
      <b>{r.awayTeam ?? '—'}</b>
    </>
  );
  const title = [r.eventDescription, r.competition, r.attribution].filter(Boolean).join(' · ');
  return r.id ? (
    <a href={pickHref(r.id)} className="logos" title={title} data-attribution={r.attribution ?? ''}>
      <span className="sr-only">Details: </span>
      {teams}
    </a>
  ) : (
    <span className="logos" title={title} data-attribution={r.attribution ?? ''}>
      {teams}
    </span>
  );
};

/** id, heading, sort value (numbers sort as numbers; empty values last), and the cell. */
const COLUMNS: [string, string, (r: PickRow) => string | number | null, Cell][] = [
  ['event', 'Event', (r) => r.eventDescription ?? `${r.homeTeam ?? ''} ${r.awayTeam ?? ''}`, EVENT],
  ['eventDate', 'Event date', (r) => r.eventDate, (r) => <UtcTime iso={r.eventDate} />],
  [
    'competition',
    'Sport / league / round',
    (r) => [r.sport, r.league, r.roundOrWeek].filter(Boolean).join(' · '),
    (r) => (
      <span title={[r.sport, r.league, r.competition, r.roundOrWeek].filter(Boolean).join(' · ')}>
        {dash(r.sport)} <span className="m">{[r.league, r.roundOrWeek].filter(Boolean).join(' · ')}</span>
      </span>
    ),
  ],
  [
    'market',
    'Market',
    (r) => r.marketType,
    (r) => (
      <>
        {marketLabel(r.marketType)}
        {r.isPlayerPick && <span className="tag">player</span>}
      </>
    ),
  ],
  ['selection', 'Selection', (r) => r.selection, (r) => <b>{dash(r.selection)}</b>],
  ['line', 'Line', (r) => (typeof r.line === 'string' && Number.isFinite(Number(r.line)) ? Number(r.line) : r.line), (r) => dash(r.line)],
  [
    'odds',
    'Odds',
    (r) => r.odds,
    (r) => (
      <>
        {formatOdds(r.odds, r.oddsFormat)}
        {r.oddsFormat && <span className="m"> {r.oddsFormat}</span>}
      </>
    ),
  ],
  ['bookmaker', 'Bookmaker', (r) => r.bookmaker, (r) => dash(r.bookmaker)],
  ['probability', 'Probability', (r) => r.probability, (r, scale) => formatProbability(r.probability, scale)],
  ['confidenceTier', 'Tier', (r) => r.confidenceTier, (r) => dash(r.confidenceTier)],
  ['status', 'Status', (r) => r.status, (r) => <StatusBadge value={r.status} />],
  ['result', 'Result', (r) => r.result, (r) => <StatusBadge value={r.result} />],
  ['publishedAt', 'Published', (r) => r.publishedAt, (r) => <UtcTime iso={r.publishedAt} />],
];

const columns: ColumnDef<PickRow>[] = COLUMNS.map(([id, header, value]) => ({
  id,
  header,
  accessorFn: (r) => value(r) ?? undefined,
  sortUndefined: 'last',
  sortDescFirst: false, // the first press sorts ascending in every column (TanStack starts numbers descending)
  enableHiding: id !== 'event',
}));
const cells = new Map(COLUMNS.map(([id, , , cell]) => [id, cell]));

const VISIBILITY_KEY = 'picks-portal.columns';
/** What shows until a person chooses: Published and Bookmaker are one click away, so the default columns fit 1440 px. */
const DEFAULT_VISIBILITY: VisibilityState = { publishedAt: false, bookmaker: false };

/**
 * Sorting orders the rows on screen (this page), a column picker is remembered per browser, the density per
 * person (lib/preferences: the server renders the rows at it, so nothing jumps), headers are buttons.
 */
export function RecordsTable({
  rows,
  scale,
  caption,
  toolbar,
  density = 'compact',
}: {
  rows: PickRow[];
  scale: ProbabilityScale;
  caption: string;
  density?: 'compact' | 'comfortable';
  /** The count and the pager, on the same line as the table's own controls. */
  toolbar?: ReactNode;
}) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const [columnVisibility, setColumnVisibility] = useState<VisibilityState>(DEFAULT_VISIBILITY);
  const [comfortable, setComfortable] = useState(density === 'comfortable');

  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(VISIBILITY_KEY) ?? '{}');
      if (saved && typeof saved === 'object') setColumnVisibility({ ...DEFAULT_VISIBILITY, ...(saved as VisibilityState) });
    } catch {
      // a damaged preference is simply forgotten
    }
  }, []);
  const changeDensity = (next: boolean) => {
    setComfortable(next);
    void savePreferences({ density: next ? 'comfortable' : 'compact' });
    // The other tables of the page follow at once (app/globals.css reads it on <html>, as the layout sets it).
    if (next) document.documentElement.dataset.density = 'comfortable';
    else delete document.documentElement.dataset.density;
  };
  const attributions = [...new Set(rows.map((r) => r.attribution).filter((a): a is string => !!a))];
  const changeVisibility: typeof setColumnVisibility = (update) =>
    setColumnVisibility((now) => {
      const next = typeof update === 'function' ? update(now) : update;
      localStorage.setItem(VISIBILITY_KEY, JSON.stringify(next));
      return next;
    });

  // TanStack Table returns functions React Compiler cannot memoise; the portal does not use the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting, columnVisibility },
    onSortingChange: setSorting,
    onColumnVisibilityChange: changeVisibility,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (row, index) => row.id ?? `row-${index}`,
  });
  const visible = table.getVisibleLeafColumns();

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        {toolbar}
        <details className="relative inline-block">
          <summary className={buttonClass('secondary', 'md', 'cursor-pointer list-none')}>Columns</summary>
          <fieldset className="absolute z-10 mt-1 w-56 space-y-1 rounded-md border border-slate-200 bg-white p-3 shadow-lg">
            <legend className="sr-only">Visible columns</legend>
            {table
              .getAllLeafColumns()
              .filter((c) => c.getCanHide())
              .map((column) => (
                <label key={column.id} className="flex items-center gap-2">
                  <input type="checkbox" checked={column.getIsVisible()} onChange={column.getToggleVisibilityHandler()} />
                  {String(column.columnDef.header)}
                </label>
              ))}
          </fieldset>
        </details>
        <label className="flex items-center gap-1.5 text-slate-600">
          <input type="checkbox" checked={comfortable} onChange={(e) => changeDensity(e.target.checked)} /> Comfortable rows
        </label>
        <p className="text-xs text-slate-500" data-testid="sort-note">
          Sorting orders the rows on this page only; exports keep the API&apos;s order.
        </p>
      </div>
      <div className={cardClass('max-h-[80vh] overflow-auto')} role="region" aria-label={caption} tabIndex={0}>
        <table data-records="" data-density={comfortable ? 'comfortable' : 'compact'} data-testid="records-table">
          <caption className="sr-only">{caption}</caption>
          <thead>
            <tr>
              {visible.map((column) => {
                const sorted = column.getIsSorted();
                return (
                  <th key={column.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}>
                    <button type="button" onClick={column.getToggleSortingHandler()} title="Sort the rows on this page by this column">
                      {String(column.columnDef.header)} <span aria-hidden>{sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}</span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {table.getRowModel().rows.map(({ id, original }) => (
              <tr key={id} data-pick-id={original.id ?? ''}>
                {visible.map((column) => (
                  <td key={column.id}>{cells.get(column.id)!(original, scale)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="text-xs text-slate-600" data-testid="attributions">
        <span className="font-medium">Attribution</span> (as the licence requires; each row&apos;s own on hover and on its page):{' '}
        {attributions.length ? attributions.join(' · ') : 'none supplied'}
      </p>
    </div>
  );
}
