import { createHash } from 'node:crypto';
import { canonicalJson } from '../vocabulary/version';
import type { Pick } from '../picks-api/schemas';

/**
 * Reconciliation (spec §3, §6): the service pushes nothing, so each poll walks the window of event dates
 * and compares every record with what the previous complete walk saw, on the stable id, `status`,
 * `result`, `publishedAt` and a digest of everything else. Pure: the poller (./poller.ts) walks and stores.
 */

import {
  DISPLAY_FIELDS,
  type ChangeKind,
  type Display,
  type Lifecycle,
  type Plan,
  type Snapshot,
  type Window,
} from '../vocabulary/changes';

export {
  CHANGE_KINDS,
  DISPLAY_FIELDS,
  type ChangeEntry,
  type ChangeKind,
  type Display,
  type Lifecycle,
  type Plan,
  type Snapshot,
  type Window,
} from '../vocabulary/changes';

const COMPARED = new Set(['id', 'status', 'result', 'publishedAt']);
const NONE: ReadonlySet<string> = new Set();

/**
 * A record reduced to what the feed compares. Null and absent are the same (spec §9), so neither is in the
 * digest; nor are the fields named in `ignore` (CHANGES_DIGEST_IGNORE).
 */
export function snapshot(record: Pick & { id: string }, ignore: ReadonlySet<string> = NONE): Snapshot {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) if (!COMPARED.has(key) && !ignore.has(key)) rest[key] = record[key];
  const display: Display = {};
  for (const key of DISPLAY_FIELDS) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') display[key] = value;
  }
  const eventMs = typeof record.eventDate === 'string' ? Date.parse(record.eventDate) : NaN;
  return {
    id: record.id,
    status: record.status ?? null,
    result: record.result ?? null,
    publishedAt: record.publishedAt ?? null,
    digest: createHash('sha256').update(canonicalJson(rest)).digest('base64url').slice(0, 32),
    eventMs: Number.isFinite(eventMs) ? eventMs : null,
    display,
    withdrawn: false,
  };
}

const lifecycle = (s: Snapshot): Lifecycle => ({ status: s.status, result: s.result, publishedAt: s.publishedAt });
const inside = (eventMs: number | null, window: Window) => eventMs === null || (eventMs >= window.fromMs && eventMs < window.toMs);

/**
 * Compares a complete walk with what was watched.
 * - `previous` null: nothing was ever walked; this walk is the baseline and lists nothing.
 * - A record never seen is `new` only if its event date lies in the part of the window the previous walk
 *   covered; one that merely entered the window as it rolled forward is that slice's baseline, silently.
 * - A watched record no longer delivered is `withdrawn` while its event date is still inside the window;
 *   one whose date left the window is forgotten. A withdrawn record delivered again is `restored`.
 */
export function reconcile(watched: Map<string, Snapshot>, delivered: Map<string, Snapshot>, window: Window, previous: Window | null): Plan {
  const plan: Plan = { entries: [], upserts: [], removals: [] };
  for (const [id, now] of delivered) {
    const before = watched.get(id);
    if (!before) {
      plan.upserts.push(now);
      if (previous && inside(now.eventMs, previous))
        plan.entries.push({ id, kinds: ['new'], display: now.display, before: null, after: lifecycle(now) });
      continue;
    }
    const kinds: ChangeKind[] = [];
    if (before.withdrawn) kinds.push('restored');
    if (before.status !== now.status) kinds.push('status');
    if (before.result !== now.result) kinds.push('result');
    if (kinds.length === 0 && (before.publishedAt !== now.publishedAt || before.digest !== now.digest)) kinds.push('updated');
    if (kinds.length > 0) plan.entries.push({ id, kinds, display: now.display, before: lifecycle(before), after: lifecycle(now) });
    if (kinds.length > 0 || before.publishedAt !== now.publishedAt || before.digest !== now.digest || before.eventMs !== now.eventMs)
      plan.upserts.push(now);
  }
  for (const [id, before] of watched) {
    if (delivered.has(id)) continue;
    if (!inside(before.eventMs, window)) {
      plan.removals.push(id);
    } else if (!before.withdrawn) {
      plan.entries.push({ id, kinds: ['withdrawn'], display: before.display, before: lifecycle(before), after: null });
      plan.upserts.push({ ...before, withdrawn: true });
    }
  }
  return plan;
}
