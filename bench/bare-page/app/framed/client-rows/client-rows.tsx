'use client';

import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useState } from 'react';
import { eventCell, text, type Row } from '../../rows/cells';

/** The bare table's cells (../../rows/page.tsx) in a sortable @tanstack/react-table, nothing else. */

const plain = (header: string, field: string): ColumnDef<Row> => ({ id: field, header, accessorFn: (r) => text(r[field]) });

const COLUMNS: ColumnDef<Row>[] = [
  {
    id: 'event',
    header: 'Event',
    accessorFn: (r) => text(r.homeTeam),
    cell: ({ row }) => eventCell(row.original),
  },
  plain('Date', 'eventDate'),
  {
    id: 'where',
    header: 'Sport / league / round',
    accessorFn: (r) => `${text(r.sport)} / ${text(r.league)} / ${text(r.roundOrWeek)}`,
  },
  plain('Market', 'marketType'),
  plain('Selection', 'selection'),
  plain('Line', 'line'),
  plain('Odds', 'odds'),
  plain('Bookmaker', 'bookmaker'),
  plain('Probability', 'probability'),
  plain('Tier', 'confidenceTier'),
  plain('Status', 'status'),
];

export function ClientRows({ rows }: { rows: Row[] }) {
  const [sorting, setSorting] = useState<SortingState>([]);
  // eslint-disable-next-line react-hooks/incompatible-library -- as the portal's own table (components/records/records-table.tsx)
  const table = useReactTable({
    data: rows,
    columns: COLUMNS,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (r) => String(r.id),
  });
  return (
    <table>
      <thead>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => (
              <th
                key={header.id}
                aria-sort={header.column.getIsSorted() === 'asc' ? 'ascending' : header.column.getIsSorted() ? 'descending' : undefined}
              >
                <button type="button" onClick={header.column.getToggleSortingHandler()}>
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </button>
              </th>
            ))}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.map((row) => (
          <tr key={row.id}>
            {row.getVisibleCells().map((cell) => (
              <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
