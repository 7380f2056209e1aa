import { BOOLEAN_FIELDS, DOUBLE_FIELDS, NESTED_PICK_FIELDS, NUMERIC_TEXT, PICK_FIELDS, TIME_FIELDS, type Pick } from '../picks-api/schemas';

/**
 * The Parquet file's columns (./parquet.ts): its schema, and each page's records turned into column values as they
 * arrive (decoded text: ./formats.ts). `line` is kept as it came until the first row group is written, which
 * decides its type.
 */

const DOCUMENTED = new Set<string>(PICK_FIELDS);
const LINE = PICK_FIELDS.indexOf('line');

export type LineType = 'DOUBLE' | 'STRING';
type Element = Record<string, unknown> & { name: string };
const text = (name: string): Element => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });

export function schemaOf(lineType: LineType): Element[] {
  const columns: Element[] = [];
  for (const field of PICK_FIELDS) {
    const nested = NESTED_PICK_FIELDS[field as keyof typeof NESTED_PICK_FIELDS];
    if (nested) columns.push({ name: field, repetition_type: 'OPTIONAL', num_children: nested.length }, ...nested.map(text));
    else if (TIME_FIELDS.has(field))
      columns.push({
        name: field,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        repetition_type: 'OPTIONAL',
      });
    else if (DOUBLE_FIELDS.has(field) || (field === 'line' && lineType === 'DOUBLE'))
      columns.push({ name: field, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
    else if (BOOLEAN_FIELDS.has(field)) columns.push({ name: field, type: 'BOOLEAN', repetition_type: 'OPTIONAL' });
    else columns.push(text(field));
  }
  columns.push({ name: 'extra', type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type: 'OPTIONAL' });
  return [{ name: 'root', num_children: PICK_FIELDS.length + 1 }, ...columns];
}

/** The columns by path, as the docs list them (a struct's fields as `eventMetadata.stage`). */
export const PARQUET_COLUMNS: readonly string[] = [
  ...PICK_FIELDS.flatMap((field) =>
    field in NESTED_PICK_FIELDS
      ? NESTED_PICK_FIELDS[field as keyof typeof NESTED_PICK_FIELDS].map((child) => `${field}.${child}`)
      : [field],
  ),
  'extra',
];

/** A field's value as its column holds it; what does not fit is handed to `keep` (it goes to `extra`). */
type Convert = (value: unknown, keep: (value: unknown) => void) => unknown;

const asText: Convert = (value) => (typeof value === 'string' ? value : String(value));
const asItself: Convert = (value) => value;
// Milliseconds since the epoch: the writer takes a number for a timestamp (no Date made per value).
const asTime: Convert = (value, keep) => {
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isNaN(at)) return at;
  keep(value);
  return null;
};
const asStruct =
  (children: readonly string[]): Convert =>
  (value, keep) => {
    const holder = value as Record<string, unknown>;
    const typed: Record<string, unknown> = {};
    for (const child of children) {
      const v = holder[child];
      typed[child] = v === null || v === undefined ? null : typeof v === 'string' ? v : String(v);
    }
    let beyond: Record<string, unknown> | null = null;
    for (const key in holder) if (!children.includes(key)) (beyond ??= {})[key] = holder[key];
    if (beyond) keep(beyond);
    return typed;
  };

const CONVERT: Convert[] = PICK_FIELDS.map((field) => {
  const nested = NESTED_PICK_FIELDS[field as keyof typeof NESTED_PICK_FIELDS];
  if (nested) return asStruct(nested);
  if (TIME_FIELDS.has(field)) return asTime;
  // line: as it came, until its type is known (ColumnBuffer.take).
  if (field === 'line' || DOUBLE_FIELDS.has(field) || BOOLEAN_FIELDS.has(field)) return asItself;
  return asText;
});

/** Records as column values, gathered page by page; `take` hands over a row group's worth. */
export class ColumnBuffer {
  private columns: unknown[][] = PICK_FIELDS.map(() => []);
  private extra: (Record<string, unknown> | null)[] = [];
  lineType: LineType | null = null;

  get rows(): number {
    return this.extra.length;
  }

  add(records: readonly Pick[]): void {
    let left: Record<string, unknown> | null = null;
    let field = '';
    const keep = (value: unknown) => void ((left ??= {})[field] = value);
    for (const raw of records) {
      const record = raw as Record<string, unknown>;
      left = null;
      for (let f = 0; f < PICK_FIELDS.length; f += 1) {
        field = PICK_FIELDS[f]!;
        const value = record[field];
        this.columns[f]!.push(value === null || value === undefined ? null : CONVERT[f]!(value, keep));
      }
      for (const key in record) if (!DOCUMENTED.has(key)) (left ??= {})[key] = record[key];
      // The writer serialises a JSON column's values itself.
      this.extra.push(left);
    }
  }

  /** The first `count` rows as the writer's column data (the first call decides `line`'s type from them). */
  take(count: number) {
    const columns = this.columns.map((column) => column.splice(0, count));
    const extra = this.extra.splice(0, count);
    const lines = columns[LINE]!;
    this.lineType ??= lines.every((v) => v === null || typeof v === 'number') ? 'DOUBLE' : 'STRING';
    for (let i = 0; i < lines.length; i += 1) {
      const value = lines[i];
      if (value === null) continue;
      if (this.lineType === 'STRING') lines[i] = String(value);
      else if (typeof value === 'number') continue;
      else if (typeof value === 'string' && NUMERIC_TEXT.test(value.trim())) lines[i] = Number(value);
      else {
        (extra[i] ??= {}).line = value;
        lines[i] = null;
      }
    }
    return [...PICK_FIELDS.map((name, f) => ({ name, data: columns[f]! })), { name: 'extra', data: extra }];
  }
}
