import type { Kysely } from 'kysely';
import type { HistoryFilters } from '../store/history-at';
import { changedBetween, statesAt } from '../store/history-read';
import type { Database } from '../store/schema';
import { fieldChanges, type FieldChange } from './diff';
import { bodyOf } from '../vocabulary/version';

/**
 * The difference between two moments. Only records with a version first seen between them can differ, so
 * only those are read: each one's state at both moments, compared. A record withdrawn and restored in
 * between, as it was, is no difference.
 */

export interface Difference {
  id: string;
  change: 'added' | 'withdrawn' | 'changed';
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** The fields that differ (none for added and withdrawn records). */
  fields: FieldChange[];
}

const fold = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value);

/** A record matches the filters when either of its two states does (a record that left a sport still shows). */
function matches(record: Record<string, unknown> | null, filters: HistoryFilters): boolean {
  if (!record) return false;
  if (filters.sport && fold(record.sport) !== filters.sport.toLowerCase()) return false;
  if (filters.league && fold(record.league) !== filters.league.toLowerCase()) return false;
  if (filters.status && record.status !== filters.status) return false;
  if (filters.result && record.result !== filters.result) return false;
  return true;
}

export function differenceOf(id: string, before: string | null | undefined, after: string | null | undefined): Difference | null {
  const a = before ? bodyOf(before) : null;
  const b = after ? bodyOf(after) : null;
  if (!a && !b) return null;
  if (!a) return { id, change: 'added', before: null, after: b, fields: [] };
  if (!b) return { id, change: 'withdrawn', before: a, after: null, fields: [] };
  if (before === after) return null;
  return { id, change: 'changed', before: a, after: b, fields: fieldChanges(a, b) };
}

export async function* eachDifference(
  db: Kysely<Database>,
  range: { fromMs: number; toMs: number },
  filters: HistoryFilters,
  batch = 500,
): AsyncGenerator<Difference> {
  let after: string | null = null;
  for (;;) {
    const ids = await changedBetween(db, range.fromMs, range.toMs, after, batch);
    if (ids.length === 0) return;
    const [then, now] = await Promise.all([statesAt(db, ids, range.fromMs), statesAt(db, ids, range.toMs)]);
    for (const id of ids) {
      const difference = differenceOf(id, then.get(id), now.get(id));
      if (difference && (matches(difference.before, filters) || matches(difference.after, filters))) yield difference;
    }
    if (ids.length < batch) return;
    after = ids.at(-1)!;
  }
}
