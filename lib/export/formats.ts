import { encodingOf, type PickList } from '../picks-api';
import type { RecordFormat } from '../vocabulary/formats';
import { csvHeader, csvLines } from './csv';
import { jsonClosing, jsonLinesPage, jsonOpening, jsonPage, type ExportMeta } from './json';
import { ParquetOnWorker } from './parquet-thread';

/**
 * How each format writes a record set: what comes before the records, each page of them, and what closes the
 * file (given the count and the walk's report). CSV, JSON and JSON Lines write the upstream's bytes as they come
 * (byte strings, ./json.ts); Parquet hands the same bytes, as JSON Lines, to a worker thread, which turns them into
 * columns page by page and writes a row group at a time (./parquet-thread.ts).
 */

export interface FormatWriter {
  /** Whether the walk may hand over records as byte strings (their text undecoded). */
  readonly byteStrings: boolean;
  head(): Uint8Array;
  /** A page's bytes (a promise where the writing happens off the serving thread). */
  page(page: PickList, first: boolean): Uint8Array | Promise<Uint8Array>;
  tail(count: number, walk: object | null): Uint8Array | Promise<Uint8Array>;
  /** The file will not be finished (a failure, the reader gone): what the writer holds for it is let go. */
  abandon?(): void;
}

const none = new Uint8Array(0);
// Buffer.from(text, 'utf8') is Node's native encoder: measurably cheaper than TextEncoder per page.
const encode = (text: string): Uint8Array => Buffer.from(text, 'utf8');

export function formatWriter(format: RecordFormat, meta: ExportMeta, bom: boolean, about: Record<string, unknown> = {}): FormatWriter {
  switch (format) {
    case 'csv':
      return {
        byteStrings: true,
        head: () => encode(`${bom ? '\uFEFF' : ''}${csvHeader()}`),
        page: (page) => Buffer.from(csvLines(page.data), encodingOf(page)),
        tail: () => none,
      };
    case 'json':
      return {
        byteStrings: true,
        head: () => encode(jsonOpening(meta)),
        page: (page, first) => jsonPage(page, first),
        tail: (count, walk) => encode(jsonClosing(count, walk)),
      };
    case 'jsonl':
      return { byteStrings: true, head: () => none, page: (page) => jsonLinesPage(page), tail: () => none };
    case 'parquet': {
      const file = new ParquetOnWorker({ 'picks.export': { ...about, ...meta } });
      return {
        // The page's records go to the writer's thread as JSON Lines bytes (the upstream's own where the body
        // allows): nothing is decoded or re-serialised here, so the walk may hand them over as byte strings.
        byteStrings: true,
        head: () => none,
        page: (page) => file.addLines(jsonLinesPage(page)),
        tail: (count, walk) => file.finish({ 'picks.count': count, ...(walk ? { 'picks.walk': walk } : {}) }),
        abandon: () => file.abandon(),
      };
    }
  }
}
