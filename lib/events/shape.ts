import { createHash } from 'node:crypto';
import { canonicalBytes } from '../proof/canonical';
import type { EventRow } from '../store/events';
import { inScope, projectRecord, withheldFields, type TokenScope } from '../tokens/scope';
import type { EVENT_TYPES } from '../vocabulary/tokens';

/**
 * One entry of the change feed as an event of API v1's stream (docs/api-v1.md, "Events"): its type, the record as
 * the poll saw it (through the token's scope: fields of a content it lacks left out), the fields that changed, and
 * its hash. Built from what the store keeps by content (the record's versions are named by their digest), so the
 * same event has the same bytes on every instance and at every resume.
 */

export { EVENT_TYPES } from '../vocabulary/tokens';
export type EventType = (typeof EVENT_TYPES)[number];

export interface FieldChange {
  before: unknown;
  after: unknown;
}

/** What an event's hash covers. */
export interface EventBody {
  seq: number;
  type: EventType;
  pickId: string;
  detectedAt: string;
  /** The record as it now is; null when withdrawn (or its version is no longer kept). */
  record: Record<string, unknown> | null;
  /** For pick.changed and pick.settled: each field that changed, before and after. */
  changes: Record<string, FieldChange> | null;
}

export interface PickEvent extends EventBody {
  /** The hash of the event before this one in the token's stream; null for the first one the portal keeps. */
  prev: string | null;
  /** sha256 (base64url) of the canonical JSON (RFC 8785) of the event without `prev` and `hash`. */
  hash: string;
}

/** The event's type from the feed's kinds: a withdrawal, a return, a first sighting, a settlement, or any other change. */
export function eventType(row: Pick<EventRow, 'kinds' | 'before' | 'after'>): EventType {
  if (row.kinds.includes('withdrawn')) return 'pick.withdrawn';
  if (row.kinds.includes('restored')) return 'pick.restored';
  if (row.kinds.includes('new')) return 'pick.published';
  const settledNow = row.after?.status === 'settled' || (row.after?.result ?? null) !== null;
  const settledBefore = row.before?.status === 'settled' || (row.before?.result ?? null) !== null;
  return settledNow && !settledBefore ? 'pick.settled' : 'pick.changed';
}

/**
 * Whether the token reads this entry: inside its sports, leagues and date window (as API v1 judges a record),
 * and, for a token that reads results but not picks, only records that have (or had) a result.
 */
export function visibleTo(row: EventRow, scope: TokenScope): boolean {
  if (!inScope(row.display, scope)) return false;
  if (scope.content.includes('picks')) return true;
  return (row.after?.result ?? null) !== null || (row.before?.result ?? null) !== null;
}

const parse = (body: string | undefined) => (body === undefined ? null : (JSON.parse(body) as Record<string, unknown>));
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields that differ between two versions (top-level; nested objects compared whole). */
function differences(before: Record<string, unknown>, after: Record<string, unknown>, withheld: readonly string[]) {
  const changes: Record<string, FieldChange> = {};
  for (const field of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (withheld.includes(field) || same(before[field], after[field])) continue;
    changes[field] = { before: before[field] ?? null, after: after[field] ?? null };
  }
  return changes;
}

/** Built from the entry and the versions' bodies (by digest); `bodies` lacking one makes the record null. */
export function eventBody(row: EventRow, bodies: ReadonlyMap<string, string>, scope: TokenScope): EventBody {
  const type = eventType(row);
  const withheld = withheldFields(scope);
  const now = row.digest === null ? null : parse(bodies.get(row.digest));
  const record = now && projectRecord(now, withheld);
  let changes: Record<string, FieldChange> | null = null;
  if (type === 'pick.changed' || type === 'pick.settled') {
    const was = row.prevDigest === null ? null : parse(bodies.get(row.prevDigest));
    if (now && was) changes = differences(was, now, withheld);
    else {
      // The versions are no longer kept: what the feed compares itself.
      const lifecycle = (which: EventRow['before']) => ({ status: which?.status, result: which?.result, publishedAt: which?.publishedAt });
      changes = differences(lifecycle(row.before), lifecycle(row.after), withheld);
    }
  }
  return { seq: row.seq, type, pickId: row.pickId, detectedAt: row.detectedAt, record, changes };
}

export function hashEvent(body: EventBody): string {
  const { seq, type, pickId, detectedAt, record, changes } = body;
  return createHash('sha256').update(canonicalBytes({ seq, type, pickId, detectedAt, record, changes })).digest('base64url');
}

/** The digests an entry's event needs. */
export const digestsOf = (row: EventRow) => [row.digest, row.prevDigest].filter((d): d is string => d !== null);
