import Papa from 'papaparse';
import type { AuditEntry } from '../store/audit';

/** The audit trail as a file, a batch of entries at a time: CSV (papaparse, formulae neutralised) or JSON. */

export const AUDIT_COLUMNS = [
  'seq',
  'at',
  'actor',
  'role',
  'action',
  'target',
  'filters',
  'outcome',
  'errorCode',
  'records',
  'bytes',
  'sha256',
  'durationMs',
  'requestIds',
  'address',
  'licence',
  'prevHash',
  'hash',
] as const;

const options = { newline: '\r\n', escapeFormulae: /^[=+\-@\t\r\n]/, quotes: false } as const;

export function auditCsvHeader(): string {
  return `${Papa.unparse([AUDIT_COLUMNS as unknown as string[]], options)}\r\n`;
}

export function auditCsvRows(entries: AuditEntry[]): string {
  if (entries.length === 0) return '';
  const rows = entries.map((entry) =>
    AUDIT_COLUMNS.map((column) => {
      const value = entry[column];
      if (value === null) return null;
      if (column === 'filters') return JSON.stringify(value);
      if (column === 'requestIds') return (value as string[]).join(' ');
      return value as string | number;
    }),
  );
  return `${Papa.unparse(rows, options)}\r\n`;
}

export const auditJsonOpening = (filters: Record<string, string>) => `{"filters":${JSON.stringify(filters)},"entries":[\n`;
export const auditJsonRows = (entries: AuditEntry[], first: boolean) =>
  entries.map((entry, i) => `${first && i === 0 ? '' : ',\n'}${JSON.stringify(entry)}`).join('');
export const auditJsonClosing = (count: number) => `\n],"count":${count},"complete":true}\n`;
