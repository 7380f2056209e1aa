import type { ReactNode } from 'react';
import { cardClass } from '@/components/ui/card';
import { CopyHash } from '@/components/ui/copy-hash';

/**
 * The portal's one table idiom (audit, exports, users, changes, delivery runs, coverage, usage, summaries),
 * one line a row at the person's density (app/globals.css `[data-table]`, lib/preferences). Columns are
 * named objects: an id (also the cell's `data-cell`), a heading, and how a row shows in it. A `card` table
 * is a panel of its own; a `bare` one sits inside a card or a fold, and `small` sets it in small type. With
 * a `label` the table sits in a labelled, keyboard-focusable scrolling region (axe:
 * scrollable-region-focusable), for the wide ones. The records table stays its own (ADR 0009).
 */

export interface Column<Row> {
  id: string;
  header: string;
  cell: (row: Row) => ReactNode;
  /** Figures are right-aligned; `nowrap` keeps times and links on one line; `className` adds to the cell. */
  align?: 'right';
  nowrap?: boolean;
  className?: string;
  /** What the heading adds (a width, say). */
  headerClassName?: string;
  /** The cell names its row (`<th scope="row">`): a league, a day, a field. */
  rowHeader?: boolean;
  /** On a phone's card, this cell's link opens the item: the whole card is tappable (a list's name or id). */
  primary?: boolean;
  /** The whole value, shown on hover (a cut sha256, say). */
  title?: (row: Row) => string | undefined;
  /** Long text cut to one line at 16rem, the whole of it on hover: no cell widens the table past the screen. */
  truncate?: (row: Row) => string;
  /** Where a cut cell is cut, when not at 16rem (a Tailwind max-width class). */
  cutAt?: 'max-w-32' | 'max-w-40' | 'max-w-48' | 'max-w-56';
}

/** Filters or settings as people read them: `name: value`, decoded, one after another. */
export function filtersText(filters: Record<string, string> | null): string {
  const entries = Object.entries(filters ?? {});
  return entries.length ? entries.map(([name, value]) => `${name}: ${value}`).join(' · ') : '—';
}

const LOOKS = {
  regular: { table: 'min-w-full text-sm', head: 'bg-slate-50 text-xs uppercase tracking-wide text-slate-600', th: 'px-3 py-2', td: 'px-3' },
  small: { table: 'w-full text-xs', head: 'text-slate-600', th: 'px-2 py-0.5 font-medium', td: 'px-2' },
} as const;

export function DataTable<Row>({
  testId,
  label,
  caption,
  frame = 'card',
  size = 'regular',
  columns,
  rows,
  rowKey,
  rowData,
  rowId,
  cards = false,
}: {
  testId: string;
  label?: string;
  /** What the table holds, for screen readers, when no heading beside it says so. */
  caption?: string;
  frame?: 'card' | 'bare';
  size?: keyof typeof LOOKS;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  /** `data-*` attributes of a row (ids and states that tests and scripts find rows by). */
  rowData?: (row: Row) => Record<`data-${string}`, string | number>;
  /** A row's id, for links to it (`#id`: the palette's people); the row is marked while it is the target. */
  rowId?: (row: Row) => string;
  /** A list of items: below 640 px each row is a card, each cell labelled by its heading (app/globals.css `[data-cards]`). */
  cards?: boolean;
}) {
  const region = label ? { role: 'region', 'aria-label': label, tabIndex: 0 } : {};
  const look = LOOKS[size];
  return (
    <div
      className={frame === 'card' ? cardClass('overflow-x-auto') : 'min-w-0 overflow-x-auto'}
      data-cards-frame={cards ? '' : undefined}
      {...region}
    >
      <table className={look.table} data-table={size} data-cards={cards ? '' : undefined} data-testid={testId}>
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead className={`text-left ${look.head}`}>
          <tr>
            {columns.map((column) => (
              <th
                key={column.id}
                scope="col"
                className={[look.th, column.align === 'right' ? 'text-right' : '', column.headerClassName ?? ''].join(' ')}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={rowKey(row)}
              id={rowId?.(row)}
              {...rowData?.(row)}
              className="scroll-mt-20 border-t border-slate-100 align-top target:bg-brand-50"
            >
              {columns.map((column) => {
                const Cell = column.rowHeader ? 'th' : 'td';
                return (
                  <Cell
                    key={column.id}
                    scope={column.rowHeader ? 'row' : undefined}
                    data-cell={column.id}
                    data-label={cards ? column.header : undefined}
                    data-primary={cards && column.primary ? '' : undefined}
                    title={column.title?.(row) ?? column.truncate?.(row)}
                    className={[
                      look.td,
                      column.rowHeader
                        ? `text-left ${/\bfont-(medium|semibold|bold)\b/.test(column.className ?? '') ? '' : 'font-normal'}`
                        : '',
                      column.align === 'right' ? 'text-right tabular-nums' : '',
                      column.nowrap ? 'whitespace-nowrap' : '',
                      column.className ?? '',
                    ].join(' ')}
                  >
                    {column.truncate ? (
                      <span className={`block truncate ${column.cutAt ?? 'max-w-64'}`}>{column.truncate(row)}</span>
                    ) : (
                      column.cell(row)
                    )}
                  </Cell>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A file's sha256 cut to its first 12 characters, the whole value in the tooltip; a dash when there is none. */
export function sha256Column<Row>(value: (row: Row) => string | null): Column<Row> {
  return {
    id: 'sha256',
    header: 'SHA-256',
    nowrap: true,
    cell: (row) => {
      const sha = value(row);
      return sha ? <CopyHash value={sha} /> : '—';
    },
  };
}

/** An outcome with its error code beside it. */
export function outcomeCell(outcome: string, errorCode: string | null): ReactNode {
  return (
    <>
      {outcome}
      {errorCode ? <span className="block text-xs text-red-700">{errorCode}</span> : null}
    </>
  );
}
