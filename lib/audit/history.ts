import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import { fromStore } from '../store';
import { latestAudit, type AuditEntry } from '../store/audit';

/** One person's exports, newest first, from the audit trail (the /exports page). */
export async function exportHistory(email: string): Promise<{ ok: true; entries: AuditEntry[] } | { ok: false; error: AppErrorJson }> {
  try {
    return { ok: true, entries: await fromStore((db) => latestAudit(db, { actor: email, exportsOnly: true }, 200)) };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}

/** The download that repeats an export: same kind, same filters, same format. */
export function runAgainHref(entry: AuditEntry): string {
  const format = /\.(jsonl|json|parquet)$/.exec(entry.target ?? '')?.[1] ?? 'csv';
  const query = new URLSearchParams({ ...(entry.filters ?? {}), format });
  if (entry.action === 'export.changes') return `/api/changes?${query.toString()}`;
  if (entry.action === 'export.audit') return `/api/audit?${query.toString()}`;
  if (entry.action === 'export.history') return `/api/history?${query.toString()}`;
  if (entry.action === 'export.corrections') {
    const { delivery, run } = entry.filters ?? {};
    return `/api/deliveries/${delivery}/runs/${run}/corrections?format=${format}`;
  }
  const kind = entry.action === 'export.results' ? 'results' : 'picks';
  return `/api/export/${kind}?${query.toString()}`;
}
