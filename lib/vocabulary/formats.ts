/** The formats of the files the portal writes (exports, deliveries, the change feed's files), and their names. */
export const FILE_FORMATS = ['csv', 'json', 'jsonl'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];
export const FORMAT_LABELS: Record<FileFormat, string> = { csv: 'CSV', json: 'JSON', jsonl: 'JSON Lines' };

/** The formats a record set (an export, a picks or results delivery, the set at a moment) may take: the text ones and Parquet. */
export const RECORD_FORMATS = [...FILE_FORMATS, 'parquet'] as const;
export type RecordFormat = (typeof RECORD_FORMATS)[number];
export const RECORD_FORMAT_LABELS: Record<RecordFormat, string> = { ...FORMAT_LABELS, parquet: 'Parquet' };
