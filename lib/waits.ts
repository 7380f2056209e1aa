import { processSlot } from './process-state';

/**
 * The waits that ran into their bound, counted by what was waited for (docs/architecture.md, "Waits and their
 * bounds"). Kept in this process's holder so every layer (the store, the upstream client, walks) can note one
 * without importing the metrics; lib/metrics reads the counts when Prometheus scrapes
 * (`portal_waits_bounded_total{wait}`).
 */
export const WAITS = [
  /** One upstream request's answer (PICKS_API_TIMEOUT_MS). */
  'upstream_answer',
  /** All the upstream work of a page a person is looking at (PAGE_UPSTREAM_WAIT_MS). */
  'page',
  /** A pause the upstream asked for (Retry-After) longer than the caller waits. */
  'upstream_pause',
  /** A turn at the shared upstream gate (by lane: a page's remaining wait, bulk 60 s, consumers 10 s). */
  'gate_slot',
  /** A walk slot (exports, coverage, delivery runs): never waited for, refused at once. */
  'walk_slot',
  /** A page read ahead for an API v1 walk (30 s). */
  'read_ahead',
  /** A lease of a stopped instance (a walk slot, a delivery run) that ran out and was taken over. */
  'lease',
  /** A store query or connection (PostgreSQL 10 s a query, 5 s a connection; SQLite's lock 10 s). */
  'store',
  /** A worker thread's answer (a Parquet file's page or footer: 60 s). */
  'worker',
  /** The records pages' filter counts from the index (300 ms, then the form without them). */
  'facets',
] as const;

export type Wait = (typeof WAITS)[number];

const counts = processSlot<Map<Wait, number>>('waitsBounded');

/** Notes `n` waits for `wait` that hit their bound. */
export function waitHitBound(wait: Wait, n = 1): void {
  const map = counts.once(() => new Map());
  map.set(wait, (map.get(wait) ?? 0) + n);
}

/** Every wait's count so far in this process (0 for those that never hit their bound). */
export function waitsBounded(): Array<[Wait, number]> {
  const map = counts.once(() => new Map());
  return WAITS.map((wait) => [wait, map.get(wait) ?? 0]);
}
