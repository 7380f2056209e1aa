import Papa from 'papaparse';
import { PICK_FIELD_PATHS, type Pick } from '../picks-api/schemas';

/**
 * CSV rows of Pick records: every documented field in spec order, nested objects flattened into dotted
 * columns, null and absent both empty, numbers kept as numbers. Quoting (RFC 4180) and formula
 * neutralisation (OWASP: text starting with = + - @ tab CR LF gets a leading ') are papaparse's.
 * Unknown extra fields cannot become columns of a streamed file (the header is written first); JSON keeps them.
 */

type Cell = string | number | boolean | null;

export const CSV_COLUMNS: string[] = PICK_FIELD_PATHS;

const FORMULA = /^[=+\-@\t\r\n]/;
const options = { newline: '\r\n', escapeFormulae: FORMULA, quotes: false } as const;

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value); // a documented scalar that arrived as a structure: keep it readable
}

// One reader per column, made once: the dotted paths are not split again for every record.
const READERS: ((pick: Pick) => unknown)[] = CSV_COLUMNS.map((column) => {
  const [parent, child] = column.split('.') as [string, string | undefined];
  if (child === undefined) return (pick) => pick[parent as keyof Pick];
  return (pick) => {
    const holder: unknown = pick[parent as keyof Pick];
    return holder && typeof holder === 'object' ? (holder as Record<string, unknown>)[child] : undefined;
  };
});

export function toCsvRow(pick: Pick): Cell[] {
  return READERS.map((read) => cell(read(pick)));
}

/** Rows of plain values as CSV lines, each ending in CRLF, with the same quoting and formula rules ('' for none). */
export function csvRows(rows: unknown[][]): string {
  return rows.length === 0
    ? ''
    : `${Papa.unparse(
        rows.map((row) => row.map(cell)),
        options,
      )}\r\n`;
}

/** A small table (e.g. the coverage matrix) as one CSV text, with the same quoting and formula rules. */
export function csvTable(columns: string[], rows: unknown[][]): string {
  return `${Papa.unparse({ fields: columns, data: rows.map((row) => row.map(cell)) }, options)}\r\n`;
}

export function csvHeader(): string {
  return `${Papa.unparse([CSV_COLUMNS], options)}\r\n`;
}

/** One page of records as CSV lines, each ending in CRLF. */
export function csvLines(picks: Pick[]): string {
  if (picks.length === 0) return '';
  return `${Papa.unparse(picks.map(toCsvRow), options)}\r\n`;
}
