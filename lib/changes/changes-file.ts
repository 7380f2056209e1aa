import Papa from 'papaparse';
import type { StoredChange } from '../store/changes';
import { DISPLAY_FIELDS } from './reconcile';
import { toSafeJson } from '../safe-json';

/**
 * The change feed as a file, a batch of entries at a time. JSON: `{ "feed": {...}, "data": [ … ], "count",
 * "completedAt" }`, one entry per line; CSV: one row per entry, before/after flattened, kinds
 * space-separated (papaparse quotes; formulae neutralised as in every export).
 */

type DisplayField = (typeof DISPLAY_FIELDS)[number];

/** An entry as files carry it: the display fields at the top level, null when the record had none. */
export type ChangeRecord = { seq: number; id: string; kinds: string[]; detectedAt: string } & Record<DisplayField, string | null> & {
    before: StoredChange['before'];
    after: StoredChange['after'];
  };

export function changeRecord(change: StoredChange): ChangeRecord {
  const display = Object.fromEntries(DISPLAY_FIELDS.map((key) => [key, change.display[key] ?? null])) as Record<
    DisplayField,
    string | null
  >;
  return {
    seq: change.seq,
    id: change.id,
    kinds: change.kinds,
    detectedAt: change.detectedAt,
    ...display,
    before: change.before,
    after: change.after,
  };
}

const FLAT = ['seq', 'detectedAt', 'id', 'kinds', ...DISPLAY_FIELDS] as const;
const SIDES = ['before', 'after'] as const;
const LIFE = ['status', 'result', 'publishedAt'] as const;
export const CHANGE_CSV_COLUMNS = [...FLAT, ...SIDES.flatMap((side) => LIFE.map((field) => `${side}.${field}`))];

const options = { newline: '\r\n', escapeFormulae: /^[=+\-@\t\r\n]/, quotes: false } as const;

export const changesCsvHeader = () => `${Papa.unparse([CHANGE_CSV_COLUMNS], options)}\r\n`;

export function changesCsvRows(changes: StoredChange[]): string {
  if (changes.length === 0) return '';
  const rows = changes.map((change) => {
    const record = changeRecord(change);
    return [
      ...FLAT.map((key) => (key === 'kinds' ? record.kinds.join(' ') : record[key])),
      ...SIDES.flatMap((side) => LIFE.map((field) => record[side]?.[field] ?? null)),
    ];
  });
  return `${Papa.unparse(rows, options)}\r\n`;
}

export const changesJsonOpening = (feed: Record<string, unknown>) => `{"feed":${toSafeJson(feed)},\n"data":[`;
export const changesJsonRows = (changes: StoredChange[], first: boolean) =>
  changes.map((change, i) => `${first && i === 0 ? '\n' : ',\n'}${toSafeJson(changeRecord(change))}`).join('');
/** JSON Lines: an entry a line, nothing around them. */
export const changesJsonLines = (changes: StoredChange[]) => changes.map((change) => `${toSafeJson(changeRecord(change))}\n`).join('');
export const changesJsonClosing = (count: number) =>
  `\n],\n"count":${count},\n"completedAt":${JSON.stringify(new Date().toISOString())}}\n`;
