import { BOOLEAN_FIELDS, DOUBLE_FIELDS, NESTED_PICK_FIELDS, NUMERIC_TEXT, PICK_FIELDS, TIME_FIELDS } from '../picks-api/schemas';

/**
 * The columns of a table delivery (./pg-table.ts): every documented field of a record (spec §3) as a column of its
 * type, named in snake_case so nobody has to quote them (`eventDate` → `event_date`), then the portal's own:
 * `_version` (the sha256 naming the record's content, as in record history), `_record` (the whole record as served,
 * fields added later included), `_deleted` and `_synced_at`. A value that does not fit its column's type is null
 * there and stays in `_record`.
 */

type PgType = 'text' | 'timestamptz' | 'double precision' | 'boolean' | 'jsonb';

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const typeOf = (field: string): PgType =>
  field in NESTED_PICK_FIELDS
    ? 'jsonb'
    : TIME_FIELDS.has(field)
      ? 'timestamptz'
      : DOUBLE_FIELDS.has(field)
        ? 'double precision'
        : BOOLEAN_FIELDS.has(field)
          ? 'boolean'
          : 'text';

export interface TableColumn {
  name: string;
  type: PgType;
  /** The record's field it holds (none: the portal's own). */
  field: string | null;
}

/** The record's columns, `id` first (the primary key). */
export const RECORD_COLUMNS: readonly TableColumn[] = PICK_FIELDS.map((field) => ({ name: snake(field), type: typeOf(field), field }));

/** What a run writes for each record: its columns, then `_version` and `_record` (`_deleted` and `_synced_at` are the run's). */
export const WRITTEN_COLUMNS: readonly TableColumn[] = [
  ...RECORD_COLUMNS,
  { name: '_version', type: 'text', field: null },
  { name: '_record', type: 'jsonb', field: null },
];

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The table's definition: every column, the primary key on `id`. */
export function createTableSql(table: string): string {
  const columns = RECORD_COLUMNS.map((c) => `${quoteIdent(c.name)} ${c.type}${c.name === 'id' ? ' primary key' : ''}`);
  return `create table if not exists ${table} (${[
    ...columns,
    '"_version" text not null',
    '"_record" jsonb not null',
    '"_deleted" boolean not null default false',
    '"_synced_at" timestamptz not null',
  ].join(', ')})`;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

function cell(type: PgType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'timestamptz':
      // ISO 8601 as served goes as it is; anything else Date reads is written as ISO; the rest is null (and in _record).
      if (typeof value !== 'string') return null;
      if (ISO.test(value)) return value;
      return Number.isNaN(Date.parse(value)) ? null : new Date(value).toISOString();
    case 'double precision':
      if (typeof value === 'number') return Number.isFinite(value) ? value : null;
      return typeof value === 'string' && NUMERIC_TEXT.test(value.trim()) ? Number(value) : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : null;
    case 'jsonb':
      return typeof value === 'object' ? value : null;
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

// COPY's text format: a backslash, tab, newline or carriage return in a value is escaped; \N is null.
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const SPECIAL = /[\\\t\n\r]/;
const copyText = (text: string) => (SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : text);

function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value);
  return copyText(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/**
 * One record as a line of COPY's text format (PostgreSQL's fastest way in), its values in WRITTEN_COLUMNS' order:
 * `body` is its canonical JSON, written as `_record`; `version` its digest.
 */
export function copyLine(record: Record<string, unknown>, body: string, version: string): string {
  let line = '';
  for (const c of RECORD_COLUMNS) line += `${copyValue(cell(c.type, record[c.field!]))}\t`;
  return `${line}${copyText(version)}\t${copyText(body)}\n`;
}
