/** Milliseconds in a UTC day: days here are always UTC (no daylight saving). */
export const DAY_MS = 86_400_000;

/** Whole days from now until an instant (rounded up: a licence ending later today has 1 day left), negative once past; null without one. */
export function daysUntil(iso: string | null | undefined, now = Date.now()): number | null {
  const at = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(at) ? null : Math.ceil((at - now) / DAY_MS);
}

/** The UTC day of an instant, YYYY-MM-DD. */
export const utcDay = (ms = Date.now()): string => new Date(ms).toISOString().slice(0, 10);

/** A UTC day `days` from today, for examples in messages and placeholders (never a date from weeks ago). */
export const exampleDay = (days = 0, now = Date.now()): string => utcDay(now + days * DAY_MS);
