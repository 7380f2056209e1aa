import 'server-only';
import { AppError, toAppError, type AppErrorJson } from '../errors';
import { getStore } from '../store';
import { latestAudit, type AuditEntry } from '../store/audit';

/** One person's exports, newest first, from the audit trail (the /exports page). */
export async function exportHistory(email: string): Promise<{ ok: true; entries: AuditEntry[] } | { ok: false; error: AppErrorJson }> {
  try {
    const { db } = await getStore();
    return { ok: true, entries: await latestAudit(db, { actor: email, exportsOnly: true }, 200) };
  } catch (error) {
    return { ok: false, error: toAppError(new AppError({ code: 'STORE_UNAVAILABLE', cause: error })).toJSON() };
  }
}

/** The download that repeats an export: same kind, same filters, same format. */
export function runAgainHref(entry: AuditEntry): string {
  const kind = entry.action === 'export.results' ? 'results' : 'picks';
  const format = entry.target?.endsWith('.json') ? 'json' : 'csv';
  const query = new URLSearchParams({ ...(entry.filters ?? {}), format });
  return `/api/export/${kind}?${query.toString()}`;
}
