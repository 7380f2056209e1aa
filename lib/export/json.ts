import type { Pick } from '../picks-api/schemas';
import { toSafeJson } from '../safe-json';

/**
 * A streamed JSON document: export metadata first, then `data` with every record exactly as the
 * upstream delivered it, then the record count. One record per line, so a reader can count progress
 * by newlines (JSON.stringify never emits a raw newline inside a value).
 */

export interface ExportMeta {
  endpoint: string;
  filters: Record<string, string>;
  startedAt: string;
}

export function jsonOpening(meta: ExportMeta): string {
  return `{"export":${toSafeJson(meta)},\n"data":[`;
}

export function jsonRecords(picks: Pick[], first: boolean): string {
  if (picks.length === 0) return '';
  return `${first ? '\n' : ',\n'}${picks.map((pick) => JSON.stringify(pick)).join(',\n')}`;
}

export function jsonClosing(count: number): string {
  return `\n],\n"count":${count},\n"completedAt":${JSON.stringify(new Date().toISOString())}}\n`;
}
