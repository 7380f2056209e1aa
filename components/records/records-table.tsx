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
import { formatOdds, formatProbability, pickHref, type PickRow, type ProbabilityScale } from '@/lib/picks-api/pick-view';
import { Logo } from '@/components/records/logo';
import { StatusBadge } from '@/components/status-badge';
import { UtcTime } from '@/components/utc-time';
import { buttonClass } from '@/components/ui/button';

/**
 * The picks and results table. The rows arrive once as data (the RSC payload carries the props, not a tree of
 * elements) and render as plain markup: no component with state per cell, no client <Link> per row (it would
 * hydrate and prefetch 50–200 pages); times and broken logos are finished by <AfterLoad>. Cell styles come from
 * `[data-records]` rules in globals.css rather than classes repeated in every cell.
 */

type Cell = (row: PickRow, scale: ProbabilityScale) => ReactNode;
const dash = (value: string | number | null) => (value === null || value === '' ? '—' : value);

const EVENT: Cell = (r) => (
  <>
    <div className="logos">
      <Logo src={r.competitionLogo} name={r.competition ?? r.league} shape="square" />
      <span className="m">{r.competition ?? r.league ?? '—'}</span>
    </div>
    <div className="lg b">
      <Logo src={r.homeLogo} name={r.homeTeam} />
      {r.homeTeam ?? '—'}
      <span className="m">vs</span>
      <Logo src={r.awayLogo} name={r.awayTeam} />
      {r.awayTeam ?? '—'}
    </div>
    {r.id && (
      <a href={pickHref(r.id)}>
        Details<span className="sr-only"> of {r.eventDescription ?? 'this pick'}</span>
      </a>
    )}
    <p className="m" data-attribution="">
      {r.attribution ?? 'No attribution supplied'}
    </p>
  </>
);

/** id, heading, sort value (numbers sort as numbers; empty values last), and the cell. */
const COLUMNS: [string, string, (r: PickRow) => string | number | null, Cell][] = [
  ['event', 'Event', (r) => r.eventDescription ?? `${r.homeTeam ?? ''} ${r.awayTeam ?? ''}`, EVENT],
  ['eventDate', 'Event date', (r) => r.eventDate, (r) => <UtcTime iso={r.eventDate} />],
  [
    'competition',
    'Sport / league / round',
    (r) => [r.sport, r.league, r.roundOrWeek].filter(Boolean).join(' · '),
    (r) => (
      <>
        {dash(r.sport)}
        <div className="m">{[r.league, r.roundOrWeek].filter(Boolean).join(' · ') || '—'}</div>
      </>
    ),
  ],
  [
    'market',
    'Market',
    (r) => r.marketType,
    (r) => (
      <>
        {r.marketType?.replace(/_/g, ' ') ?? '—'}
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

/** Sorting orders the rows on screen (this page), a column picker is remembered per browser, headers are buttons. */
export function RecordsTable({ rows, scale, caption }: { rows: PickRow[]; scale: ProbabilityScale; caption: string }) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const [columnVisibility, setColumnVisibility] = useState<VisibilityState>({});

  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(VISIBILITY_KEY) ?? '{}');
      if (saved && typeof saved === 'object') setColumnVisibility(saved as VisibilityState);
    } catch {
      // a damaged preference is simply forgotten
    }
  }, []);
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
        <p className="text-slate-600" data-testid="sort-note">
          Sorting by a column orders the rows on this page only, not the whole filtered set; exports keep the API&apos;s order.
        </p>
      </div>
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table data-records="" data-testid="records-table">
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
    </div>
  );
}
