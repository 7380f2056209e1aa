import 'server-only';
import { toAppError, type AppErrorJson } from '../errors';
import type { PageSearchParams } from '../picks-api/filters';
import { fromStore } from '../store';
import { latestAudit, type AuditEntry } from '../store/audit';
import { parseAuditQuery } from './query';

/** The admin page's view of the trail: the latest entries matching the URL's filters, or the error to show. */
export async function recentAudit(
  params: PageSearchParams,
): Promise<{ ok: true; entries: AuditEntry[]; query: string } | { ok: false; error: AppErrorJson }> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : value === undefined || value === '' ? [] : [value]) search.append(key, item);
  }
  try {
    const query = parseAuditQuery(search);
    const entries = await fromStore((db) => latestAudit(db, query, 200));
    search.delete('format');
    return { ok: true, entries, query: search.toString() };
  } catch (error) {
    return { ok: false, error: toAppError(error).toJSON() };
  }
}
