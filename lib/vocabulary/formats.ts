/** The formats of the files the portal writes (exports, deliveries, the change feed's files), and their names. */
export const FILE_FORMATS = ['csv', 'json', 'jsonl'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];
export const FORMAT_LABELS: Record<FileFormat, string> = { csv: 'CSV', json: 'JSON', jsonl: 'JSON Lines' };
