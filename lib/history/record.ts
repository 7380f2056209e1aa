import 'server-only';
import type { z } from 'zod';
import { fromStore } from '../store';
import { historySince, readRecordHistory } from '../store/history-read';
import type { recordHistorySchema } from './answers';
import { historyOf } from './diff';

/** One record's versions as the portal saw them (the record's page, GET /api/picks/<id>/history, the MCP server). */

export type RecordHistory = z.infer<typeof recordHistorySchema>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A record's versions, oldest first; none when the portal never saw it (or its history is past retention). */
export async function recordHistory(id: string): Promise<RecordHistory> {
  const [versions, sinceMs] = await fromStore((db) => Promise.all([readRecordHistory(db, id), historySince(db)]));
  return { id, recordedSince: iso(sinceMs), versions: historyOf(versions) };
}

/**
 * The history as someone who may read only `fields` of the record now sees it (an API token's content, the licence's
 * content mode): every other field taken out of each version and of what changed, and a version whose only changes
 * were to fields withheld dropped, so nothing withheld shows through even as "something changed".
 */
export function historyWithin(history: RecordHistory, fields: ReadonlySet<string>): RecordHistory {
  const versions: RecordHistory['versions'] = [];
  for (const version of history.versions) {
    const changes = version.changes.filter((change) => fields.has(change.field));
    if (version.kind === 'changed' && changes.length === 0) continue;
    const record = version.record === null ? null : Object.fromEntries(Object.entries(version.record).filter(([key]) => fields.has(key)));
    versions.push({ ...version, record, changes });
  }
  return { ...history, versions };
}
