import type { RecordFormat } from '../vocabulary/formats';

/** What every file the portal writes is named and answered with: type, name parts, attachment headers. */

/** Each format's media type (the portal API's OpenAPI document lists these for every file it answers). */
export const MEDIA_TYPES: Record<RecordFormat, string> = {
  csv: 'text/csv',
  json: 'application/json',
  jsonl: 'application/jsonl',
  parquet: 'application/vnd.apache.parquet',
};
const CONTENT_TYPES: Record<RecordFormat, string> = {
  csv: `${MEDIA_TYPES.csv}; charset=utf-8`,
  json: `${MEDIA_TYPES.json}; charset=utf-8`,
  jsonl: `${MEDIA_TYPES.jsonl}; charset=utf-8`,
  parquet: MEDIA_TYPES.parquet,
};

/** A file's media type by its format (JSON Lines: `application/jsonl`, as jsonlines.org names it; Parquet: IANA's). */
export const contentTypeOf = (format: RecordFormat) => CONTENT_TYPES[format];

/** An attachment of that type and name, private and never transformed. */
export function fileHeaders(contentType: string, filename: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Disposition': `attachment; filename="${filename}"`,
    // no-transform: Next would otherwise gzip the stream on the fly, costing more CPU than the whole
    // export on a small machine; compress in the reverse proxy if the network needs it (docs/operations.md).
    'Cache-Control': 'private, no-store, no-transform',
    'X-Content-Type-Options': 'nosniff',
  };
}

/** A UTC instant as file names carry it: 20261122T120000Z. */
export const fileStamp = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/** Text as a file-name part: letters (accents dropped) and digits, the rest as single dashes, lower case, 60 at most. */
export const fileLabel = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
    .slice(0, 60);
