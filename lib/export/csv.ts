import Papa from 'papaparse';
import { NESTED_PICK_FIELDS, PICK_FIELDS, type Pick } from '../picks-api/schemas';

/**
 * CSV rows of Pick records: every documented field in spec order, nested objects flattened into dotted
 * columns, null and absent both empty, numbers kept as numbers. Quoting (RFC 4180) and formula
 * neutralisation (OWASP: text starting with = + - @ tab CR LF gets a leading ') are papaparse's.
 * Unknown extra fields cannot become columns of a streamed file (the header is written first); JSON keeps them.
 */

type Cell = string | number | boolean | null;

export const CSV_COLUMNS: string[] = PICK_FIELDS.flatMap((field) =>
  field in NESTED_PICK_FIELDS ? NESTED_PICK_FIELDS[field as keyof typeof NESTED_PICK_FIELDS].map((sub) => `${field}.${sub}`) : [field],
);

const FORMULA = /^[=+\-@\t\r\n]/;
const options = { newline: '\r\n', escapeFormulae: FORMULA, quotes: false } as const;

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value); // a documented scalar that arrived as a structure: keep it readable
}

export function toCsvRow(pick: Pick): Cell[] {
  const record = pick as Record<string, unknown>;
  return CSV_COLUMNS.map((column) => {
    const dot = column.indexOf('.');
    if (dot < 0) return cell(record[column]);
    const parent = record[column.slice(0, dot)];
    return cell(parent && typeof parent === 'object' ? (parent as Record<string, unknown>)[column.slice(dot + 1)] : null);
  });
}

export function csvHeader(): string {
  return `${Papa.unparse([CSV_COLUMNS], options)}\r\n`;
}

/** One page of records as CSV lines, each ending in CRLF. */
export function csvLines(picks: Pick[]): string {
  if (picks.length === 0) return '';
  return `${Papa.unparse(picks.map(toCsvRow), options)}\r\n`;
}
