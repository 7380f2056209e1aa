import type { StoredVersion } from '../store/history-read';
import type { z } from 'zod';
import { bodyOf, canonicalJson } from '../vocabulary/version';
import type { fieldChangeSchema, historyEntrySchema } from './answers';

/** What changed between versions of a record, field by field (pure: the store reads, this compares). */

export type FieldChange = z.infer<typeof fieldChangeSchema>;

/** Top-level fields that differ; an object-valued field differs when its canonical JSON does. Sorted by field name. */
export function fieldChanges(before: Record<string, unknown> | null, after: Record<string, unknown> | null): FieldChange[] {
  const a = before ?? {};
  const b = after ?? {};
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const changes: FieldChange[] = [];
  for (const field of fields) {
    if (field === 'id') continue;
    const x = a[field] ?? null;
    const y = b[field] ?? null;
    if (canonicalJson(x) !== canonicalJson(y)) changes.push({ field, before: x, after: y });
  }
  return changes;
}

export type HistoryEntry = z.infer<typeof historyEntrySchema>;

/** A record's stored versions as its history reads: each with what changed from the one before. */
export function historyOf(versions: readonly StoredVersion[]): HistoryEntry[] {
  let previous: Record<string, unknown> | null = null;
  let withdrawn = false;
  return versions.map((version, index) => {
    const record = version.body === null ? null : bodyOf(version.body);
    const at = (ms: number) => new Date(ms).toISOString();
    const common = {
      version: version.seq,
      digest: version.digest,
      firstSeen: at(version.firstMs),
      firstSeenBy: version.firstBy,
      lastSeen: at(version.lastMs),
      lastSeenBy: version.lastBy,
    };
    if (version.digest === null) {
      withdrawn = true;
      return { ...common, kind: 'withdrawn', record: null, changes: [] };
    }
    const kind: HistoryEntry['kind'] = withdrawn ? 'restored' : index === 0 || previous === null ? 'first' : 'changed';
    const changes = previous === null ? [] : fieldChanges(previous, record);
    previous = record;
    withdrawn = false;
    return { ...common, kind, record, changes };
  });
}
