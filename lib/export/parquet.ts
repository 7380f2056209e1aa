import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { NESTED_PICK_FIELDS, PICK_FIELDS, type Pick } from '../picks-api/schemas';

/**
 * The record set as Apache Parquet (docs/api.md, "Parquet"), written by hyparquet-writer a row group at a time as
 * the walk goes: typed columns from the record schema — the spec's times as UTC timestamps (milliseconds), odds
 * and probability as doubles, `isPlayerPick` as a boolean, `eventMetadata` and `widgetEventIdentity` as structs,
 * the rest as UTF-8 text. `line` takes the type the data shows: a double when the first row group's lines are
 * all numbers, text otherwise. Nothing is lost: a value that does not fit its column (a time that does not parse,
 * a label in a numeric `line`) and every field a record carries beyond the documented ones go, as they came,
 * into `extra` (JSON; null when there is none). The file's key/value metadata carries what the manifest names:
 * the export, its filters and licence, and the walk's report.
 */

export const ROW_GROUP = 10_000;
const TIMES = new Set(['eventDate', 'settledAt', 'publishedAt']);
const DOUBLES = new Set(['odds', 'probability']);
const BOOLEANS = new Set(['isPlayerPick']);
const DOCUMENTED = new Set<string>(PICK_FIELDS);
const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

type Element = Record<string, unknown> & { name: string };
const text = (name: string): Element => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });

function schemaOf(lineType: 'DOUBLE' | 'STRING'): Element[] {
  const columns: Element[] = [];
  for (const field of PICK_FIELDS) {
    const nested = NESTED_PICK_FIELDS[field as keyof typeof NESTED_PICK_FIELDS];
    if (nested) columns.push({ name: field, repetition_type: 'OPTIONAL', num_children: nested.length }, ...nested.map(text));
    else if (TIMES.has(field))
      columns.push({
        name: field,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        repetition_type: 'OPTIONAL',
      });
    else if (DOUBLES.has(field) || (field === 'line' && lineType === 'DOUBLE'))
      columns.push({ name: field, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
    else if (BOOLEANS.has(field)) columns.push({ name: field, type: 'BOOLEAN', repetition_type: 'OPTIONAL' });
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

/** The type `line` takes in a file: a double when every line seen is a number, text otherwise. */
export const lineTypeOf = (records: readonly Pick[]): 'DOUBLE' | 'STRING' =>
  records.every((r) => r.line === null || r.line === undefined || typeof r.line === 'number') ? 'DOUBLE' : 'STRING';

/** Columns of one row group, and what did not fit them into `extra`. */
function columnsOf(records: readonly Pick[], lineType: 'DOUBLE' | 'STRING') {
  const columns = new Map<string, unknown[]>(PICK_FIELDS.map((field) => [field, new Array(records.length)]));
  const extra = new Array<Record<string, unknown> | null>(records.length);
  for (const [i, record] of records.entries()) {
    const left: Record<string, unknown> = {};
    for (const field of PICK_FIELDS) {
      const value = record[field];
      let typed: unknown = value ?? null;
      if (value === null || value === undefined) typed = null;
      else if (TIMES.has(field)) {
        const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
        typed = Number.isNaN(at) ? null : new Date(at);
        if (typed === null) left[field] = value;
      } else if (field === 'line') {
        if (lineType === 'STRING') typed = String(value);
        else if (typeof value === 'number') typed = value;
        else if (typeof value === 'string' && NUMERIC.test(value.trim())) typed = Number(value);
        else {
          typed = null;
          left[field] = value;
        }
      } else if (field in NESTED_PICK_FIELDS) {
        const children = NESTED_PICK_FIELDS[field as keyof typeof NESTED_PICK_FIELDS] as readonly string[];
        const holder = value as Record<string, unknown>;
        typed = Object.fromEntries(children.map((child) => [child, holder[child] ?? null]));
        const beyond = Object.keys(holder).filter((key) => !children.includes(key));
        if (beyond.length) left[field] = Object.fromEntries(beyond.map((key) => [key, holder[key]]));
      }
      columns.get(field)![i] = typed;
    }
    for (const key of Object.keys(record)) if (!DOCUMENTED.has(key)) left[key] = record[key as keyof Pick];
    // The writer serialises a JSON column's values itself.
    extra[i] = Object.keys(left).length ? left : null;
  }
  return [...[...columns].map(([name, data]) => ({ name, data })), { name: 'extra', data: extra }];
}

/**
 * A Parquet file written as records arrive: `add` keeps them until a row group is full and answers the bytes
 * written so far (often none); `finish` writes the rest, the metadata and the footer.
 */
export class ParquetFile {
  private readonly bytes = new ByteWriter();
  private writer: ParquetWriter | null = null;
  private held: Pick[] = [];
  private lineType: 'DOUBLE' | 'STRING' | null = null;
  private readonly metadata: { key: string; value: string }[];

  constructor(
    metadata: Record<string, unknown>,
    private readonly rowGroup = ROW_GROUP,
  ) {
    this.metadata = Object.entries(metadata).map(([key, value]) => ({ key, value: JSON.stringify(value) }));
  }

  add(records: readonly Pick[]): Uint8Array {
    this.held.push(...records);
    while (this.held.length >= this.rowGroup) this.writeGroup(this.held.splice(0, this.rowGroup));
    return this.take();
  }

  finish(metadata: Record<string, unknown> = {}): Uint8Array {
    if (this.held.length > 0 || !this.writer) this.writeGroup(this.held.splice(0));
    for (const [key, value] of Object.entries(metadata)) this.metadata.push({ key, value: JSON.stringify(value) });
    void this.writer!.finish();
    return this.take();
  }

  private writeGroup(records: Pick[]): void {
    this.lineType ??= lineTypeOf(records);
    this.writer ??= new ParquetWriter({
      writer: this.bytes,
      schema: schemaOf(this.lineType) as never,
      kvMetadata: this.metadata,
      createdBy: 'picks-partner-portal (hyparquet-writer)',
    });
    if (records.length > 0)
      void this.writer.write({ columnData: columnsOf(records, this.lineType) as never, rowGroupSize: records.length });
  }

  /** What was written since the last take (the writer's buffer is reused; its offsets keep counting). */
  private take(): Uint8Array {
    const out = Buffer.from(this.bytes.getBytes());
    this.bytes.index = 0;
    return out;
  }
}
