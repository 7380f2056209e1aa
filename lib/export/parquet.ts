import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { Pick } from '../picks-api/schemas';
import { ColumnBuffer, schemaOf } from './parquet-columns';

export { PARQUET_COLUMNS } from './parquet-columns';

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

/**
 * A Parquet file written as records arrive: `add` turns a page into column values and, once a row group is full,
 * answers the bytes written (often none); `finish` writes the rest, the metadata and the footer.
 */
export class ParquetFile {
  private readonly bytes = new ByteWriter();
  private writer: ParquetWriter | null = null;
  private readonly buffer = new ColumnBuffer();
  private readonly metadata: { key: string; value: string }[];

  constructor(
    metadata: Record<string, unknown>,
    private readonly rowGroup = ROW_GROUP,
  ) {
    this.metadata = Object.entries(metadata).map(([key, value]) => ({ key, value: JSON.stringify(value) }));
  }

  add(records: readonly Pick[]): Uint8Array {
    this.buffer.add(records);
    while (this.buffer.rows >= this.rowGroup) this.writeGroup(this.rowGroup);
    return this.take();
  }

  finish(metadata: Record<string, unknown> = {}): Uint8Array {
    if (this.buffer.rows > 0 || !this.writer) this.writeGroup(this.buffer.rows);
    for (const [key, value] of Object.entries(metadata)) this.metadata.push({ key, value: JSON.stringify(value) });
    void this.writer!.finish();
    return this.take();
  }

  private writeGroup(count: number): void {
    const columnData = this.buffer.take(count);
    // Statistics off: they cost a fifth of the writing, and DuckDB, pyarrow and Spark read the file without them.
    this.writer ??= new ParquetWriter({
      writer: this.bytes,
      schema: schemaOf(this.buffer.lineType!) as never,
      kvMetadata: this.metadata,
      statistics: false,
      createdBy: 'picks-partner-portal (hyparquet-writer)',
    });
    if (count > 0) void this.writer.write({ columnData: columnData as never, rowGroupSize: count });
  }

  /** What was written since the last take (the writer's buffer is reused; its offsets keep counting). */
  private take(): Uint8Array {
    const out = Buffer.from(this.bytes.getBytes());
    this.bytes.index = 0;
    return out;
  }
}
