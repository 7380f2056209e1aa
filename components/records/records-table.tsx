'use client';

import { getCoreRowModel, useReactTable, type ColumnDef, type VisibilityState } from '@tanstack/react-table';
import { useState, type ReactNode } from 'react';
import {
  competitionBesides,
  formatOdds,
  formatProbability,
  marketLabel,
  pickHref,
  placeOf,
  type PickRow,
  type ProbabilityScale,
} from '@/lib/picks-api/pick-view';
import { Logo } from '@/components/records/logo';
import { Marked } from '@/components/records/marked';
import { StatusBadge } from '@/components/ui/badge';
import { UtcTime } from '@/components/utc-time';
import { Popover } from '@/components/ui/popover';
import { PortalLink } from '@/components/portal-link';
import { HEADING_ORDERS, type TableOrder } from './heading-orders';
import { savePreferences } from '@/components/preferences';
import { cardClass } from '@/components/ui/card';
import { RECORD_COLUMNS, RECORD_COLUMNS_HIDDEN, type RecordColumn } from '@/lib/vocabulary/preferences';

/**
 * The picks and results table. The rows arrive once as data (the RSC payload carries the props, not a tree of
 * elements) and render as plain markup: no component with state per cell, no client <Link> per row (it would
 * hydrate and prefetch 50–200 pages); times and broken logos are finished by <AfterLoad>. Cell styles come from
 * `[data-records]` rules in globals.css rather than classes repeated in every cell.
 */

type Cell = (row: PickRow, scale: ProbabilityScale, words: readonly string[]) => ReactNode;
const NO_WORDS: readonly string[] = [];
const dash = (value: string | number | null) => (value === null || value === '' ? '—' : value);

/**
 * Two lines: home vs away with their logos (each side keeps at least 18 characters at 1440 px), and under
 * them the competition with its logo; the whole is the link to the pick's page.
 */
const EVENT: Cell = (r, _scale, words) => {
  const under = placeOf(r);
  const teams = (
    <>
      <span className="teams">
        <Logo src={r.homeLogo} name={r.homeTeam} />
        <b>{r.homeTeam ? <Marked text={r.homeTeam} words={words} /> : '—'}</b>
        <span className="m">vs</span>
        <Logo src={r.awayLogo} name={r.awayTeam} />
        <b>{r.awayTeam ? <Marked text={r.awayTeam} words={words} /> : '—'}</b>
      </span>
      <span className="under m">
        <Logo src={r.competitionLogo} name={r.league ?? r.competition} shape="square" />
        <span>{under ? <Marked text={under} words={words} /> : '—'}</span>
      </span>
    </>
  );
  const title = [r.eventDescription, r.competition, r.attribution].filter(Boolean).join(' · ');
  return r.id ? (
    <a href={pickHref(r.id)} className="event" title={title} data-attribution={r.attribution ?? ''}>
      <span className="sr-only">Details: </span>
      {teams}
    </a>
  ) : (
    <span className="event" title={title} data-attribution={r.attribution ?? ''}>
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
    (r) => placeOf(r),
    (r) => (
      <span title={[placeOf(r), competitionBesides(r)].filter(Boolean).join(' · ')}>
        {dash(r.sport)} <span className="m">{[r.league ?? r.competition, r.roundOrWeek].filter(Boolean).join(' · ')}</span>
      </span>
    ),
  ],
  [
    'market',
    'Market',
    (r) => r.marketType,
    (r) => (
      <span className="two">
        {marketLabel(r.marketType)}
        {r.isPlayerPick && <span className="tag">player</span>}
      </span>
    ),
  ],
  [
    'selection',
    'Selection',
    (r) => r.selection,
    (r, _scale, words) => (
      <span className="two">
        <b>{r.selection ? <Marked text={r.selection} words={words} /> : '—'}</b>
      </span>
    ),
  ],
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
  enableHiding: id !== 'event',
}));
const cells = new Map(COLUMNS.map(([id, , , cell]) => [id, cell]));

/** The visibility TanStack Table reads, from the person's hidden columns (lib/vocabulary/preferences). */
const visibilityOf = (hidden: readonly RecordColumn[]): VisibilityState => Object.fromEntries(hidden.map((id) => [id, false]));

/**
 * Sorting orders the rows on screen (this page); the columns shown and the density are the person's
 * (lib/preferences: the server renders the rows with them, so nothing jumps); headers are buttons.
 */
export function RecordsTable({
  rows,
  scale,
  caption,
  toolbar,
  notes,
  density = 'compact',
  hiddenColumns = RECORD_COLUMNS_HIDDEN,
  marked = NO_WORDS,
  order,
}: {
  rows: PickRow[];
  scale: ProbabilityScale;
  caption: string;
  density?: 'compact' | 'comfortable';
  /** The person's hidden columns (their cookie, read by the page). */
  hiddenColumns?: readonly RecordColumn[];
  /** The count, the export and the pager, on the same line as the table's own controls. */
  toolbar?: ReactNode;
  /** Notes on reading the table (how dates and probabilities are read), under it. */
  notes?: ReactNode;
  /** A search's words (folded), marked where they appear. */
  marked?: readonly string[];
  /** The whole set's order: the headings of HEADING_ORDERS link to it (none: headings are plain). */
  order?: TableOrder;
}) {
  const [columnVisibility, setColumnVisibility] = useState<VisibilityState>(() => visibilityOf(hiddenColumns));
  const [comfortable, setComfortable] = useState(density === 'comfortable');
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
      void savePreferences({ hiddenColumns: RECORD_COLUMNS.filter((id) => next[id] === false) });
      return next;
    });

  // TanStack Table returns functions React Compiler cannot memoise; the portal does not use the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns,
    state: { columnVisibility },
    onColumnVisibilityChange: changeVisibility,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row, index) => row.id ?? `row-${index}`,
  });
  const visible = table.getVisibleLeafColumns();

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
        {toolbar}
        <Popover label="Columns" width="w-56">
          <fieldset className="space-y-1">
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
          <label className="flex items-center gap-2 border-t border-slate-200 pt-2 text-slate-700">
            <input type="checkbox" checked={comfortable} onChange={(e) => changeDensity(e.target.checked)} /> Comfortable rows
          </label>
        </Popover>
      </div>
      <div
        className={cardClass('max-h-[80vh] overflow-auto max-sm:max-h-none')}
        data-cards-frame=""
        role="region"
        aria-label={caption}
        tabIndex={0}
      >
        <table data-records="" data-density={comfortable ? 'comfortable' : 'compact'} data-testid="records-table">
          <caption className="sr-only">{caption}</caption>
          <thead>
            <tr>
              {visible.map((column) => {
                const by = HEADING_ORDERS[column.id];
                const hrefs = by ? order?.hrefs[by] : undefined;
                const sorted = by && order?.by === by ? order.dir : null;
                const heading = String(column.columnDef.header);
                return (
                  <th key={column.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                    {hrefs ? (
                      <PortalLink
                        href={sorted === 'asc' ? hrefs.desc : hrefs.asc}
                        title={`Order the whole set by ${heading.toLowerCase()}, ${sorted === 'asc' ? 'descending' : 'ascending'}`}
                      >
                        {heading} <span aria-hidden>{sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}</span>
                      </PortalLink>
                    ) : (
                      heading
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {table.getRowModel().rows.map(({ id, original }) => (
              <tr key={id} data-pick-id={original.id ?? ''}>
                {visible.map((column) => (
                  <td key={column.id}>{cells.get(column.id)!(original, scale, marked)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="text-xs text-slate-500" data-testid="sort-note">
        {order ? 'A heading with ↕ orders the whole set, not just this page (from the portal’s index). ' : ''}
        {notes}
      </p>
      <p className="text-xs text-slate-600" data-testid="attributions">
        <span className="font-medium">Attribution</span> (as the licence requires; each row&apos;s own on hover and on its page):{' '}
        {attributions.length ? attributions.join(' · ') : 'none supplied'}
      </p>
    </div>
  );
}
