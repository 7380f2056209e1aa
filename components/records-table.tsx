'use client';

import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
  type VisibilityState,
} from '@tanstack/react-table';
import Link from 'next/link';
import { useEffect, useMemo, useState } from 'react';
import { formatOdds, formatProbability, pickHref, type PickRow, type ProbabilityScale } from '@/lib/pick-view';
import { LocalTime } from './local-time';
import { Logo } from './logo';
import { StatusBadge } from './status-badge';

/** Column definitions, kept apart from the generic rendering below. */
export function getPickColumns(scale: ProbabilityScale): ColumnDef<PickRow>[] {
  return [
    {
      id: 'event',
      header: 'Event',
      enableHiding: false,
      accessorFn: (row) => row.eventDescription ?? `${row.homeTeam ?? ''} ${row.awayTeam ?? ''}`,
      cell: ({ row: { original: r } }) => (
        <div className="min-w-64">
          <div className="flex items-center gap-2">
            <Logo src={r.competitionLogo} name={r.competition ?? r.league} size={20} shape="square" />
            <span className="text-xs text-slate-500">{r.competition ?? r.league ?? '—'}</span>
          </div>
          <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 font-medium">
            <span className="inline-flex items-center gap-1.5">
              <Logo src={r.homeLogo} name={r.homeTeam} />
              {r.homeTeam ?? '—'}
            </span>
            <span className="text-slate-500">vs</span>
            <span className="inline-flex items-center gap-1.5">
              <Logo src={r.awayLogo} name={r.awayTeam} />
              {r.awayTeam ?? '—'}
            </span>
          </div>
          {r.id && (
            <Link href={pickHref(r.id)} className="mt-1 inline-block text-xs font-medium text-brand-700 hover:underline">
              Details<span className="sr-only"> of {r.eventDescription ?? 'this pick'}</span>
            </Link>
          )}
          <p className="mt-1 text-xs text-slate-500" data-attribution="">
            {r.attribution ?? 'No attribution supplied'}
          </p>
        </div>
      ),
    },
    {
      id: 'eventDate',
      header: 'Event date',
      accessorFn: (r) => r.eventDate ?? '',
      cell: ({ row }) => <LocalTime iso={row.original.eventDate} />,
    },
    {
      id: 'competition',
      header: 'Sport / league / round',
      accessorFn: (r) => [r.sport, r.league, r.roundOrWeek].filter(Boolean).join(' · '),
      cell: ({ row: { original: r } }) => (
        <div className="text-sm">
          <div>{r.sport ?? '—'}</div>
          <div className="text-slate-500">{[r.league, r.roundOrWeek].filter(Boolean).join(' · ') || '—'}</div>
        </div>
      ),
    },
    {
      id: 'market',
      header: 'Market',
      accessorFn: (r) => r.marketType ?? '',
      cell: ({ row: { original: r } }) => (
        <span>
          {r.marketType?.replace(/_/g, ' ') ?? '—'}
          {r.isPlayerPick && <span className="ml-1 rounded bg-violet-100 px-1.5 text-xs text-violet-800">player</span>}
        </span>
      ),
    },
    {
      id: 'selection',
      header: 'Selection',
      accessorFn: (r) => r.selection ?? '',
      cell: ({ getValue }) => <span className="font-medium">{String(getValue() || '—')}</span>,
    },
    {
      id: 'line',
      header: 'Line',
      accessorFn: (r) => r.line ?? '',
      cell: ({ row }) => <span className="tabular-nums">{row.original.line ?? '—'}</span>,
    },
    {
      id: 'odds',
      header: 'Odds',
      accessorFn: (r) => r.odds ?? Number.NEGATIVE_INFINITY,
      cell: ({ row: { original: r } }) => (
        <span className="tabular-nums">
          {formatOdds(r.odds, r.oddsFormat)}
          {r.oddsFormat && <span className="ml-1 text-xs text-slate-500">{r.oddsFormat}</span>}
        </span>
      ),
    },
    { id: 'bookmaker', header: 'Bookmaker', accessorFn: (r) => r.bookmaker ?? '' },
    {
      id: 'probability',
      header: 'Probability',
      accessorFn: (r) => r.probability ?? Number.NEGATIVE_INFINITY,
      cell: ({ row }) => <span className="tabular-nums">{formatProbability(row.original.probability, scale)}</span>,
    },
    { id: 'confidenceTier', header: 'Tier', accessorFn: (r) => r.confidenceTier ?? '' },
    { id: 'status', header: 'Status', accessorFn: (r) => r.status ?? '', cell: ({ row }) => <StatusBadge value={row.original.status} /> },
    { id: 'result', header: 'Result', accessorFn: (r) => r.result ?? '', cell: ({ row }) => <StatusBadge value={row.original.result} /> },
    {
      id: 'publishedAt',
      header: 'Published',
      accessorFn: (r) => r.publishedAt ?? '',
      cell: ({ row }) => <LocalTime iso={row.original.publishedAt} />,
    },
  ];
}

const VISIBILITY_KEY = 'picks-portal.columns';

/** Generic rendering: sorting within the page, a column picker remembered per browser, keyboard-reachable headers. */
export function RecordsTable({ rows, scale, caption }: { rows: PickRow[]; scale: ProbabilityScale; caption: string }) {
  const columns = useMemo(() => getPickColumns(scale), [scale]);
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
  useEffect(() => localStorage.setItem(VISIBILITY_KEY, JSON.stringify(columnVisibility)), [columnVisibility]);

  // TanStack Table returns functions React Compiler cannot memoise; the portal does not use the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting, columnVisibility },
    onSortingChange: setSorting,
    onColumnVisibilityChange: setColumnVisibility,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (row, index) => row.id ?? `row-${index}`,
    defaultColumn: { cell: ({ getValue }) => String(getValue() ?? '') || '—' },
  });

  return (
    <div className="space-y-2">
      <details className="relative inline-block text-sm">
        <summary className="cursor-pointer rounded-md border border-slate-300 bg-white px-3 py-1.5 font-medium text-slate-700 hover:bg-slate-50">
          Columns
        </summary>
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
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="records-table">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-slate-50">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                      className="whitespace-nowrap px-3 py-2 text-left font-semibold text-slate-700"
                    >
                      <button
                        type="button"
                        onClick={header.column.getToggleSortingHandler()}
                        className="inline-flex items-center gap-1 hover:text-slate-950"
                        title="Sort this page by this column"
                      >
                        {flexRender(header.column.columnDef.header, header.getContext())}
                        <span aria-hidden className="text-xs text-slate-500">
                          {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                        </span>
                      </button>
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody className="divide-y divide-slate-100">
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id} data-pick-id={row.original.id ?? ''} className="align-top hover:bg-slate-50">
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className="px-3 py-2">
                    {flexRender(cell.column.columnDef.cell, cell.getContext()) ?? '—'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
