import { Cron } from 'croner';
import cronstrue from 'cronstrue';

/**
 * Delivery schedules: five-field cron, always UTC (croner evaluates, cronstrue says it in words).
 * A missed stretch (the portal was down) is one due time, the latest: a delivery catches up once, not
 * once per missed slot.
 */

export function checkSchedule(pattern: string): string | null {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5) return 'must be a cron expression of five fields (minute hour day month weekday), in UTC';
  try {
    new Cron(pattern, { timezone: 'UTC', paused: true });
    return null;
  } catch (error) {
    return `is not a valid cron expression (${(error as Error).message})`;
  }
}

const cron = (pattern: string) => new Cron(pattern, { timezone: 'UTC', paused: true });

/** The next `n` times after `from`, as ISO strings. */
export function nextRuns(pattern: string, n: number, from = new Date()): string[] {
  return cron(pattern)
    .nextRuns(n, from)
    .map((date) => date.toISOString());
}

/**
 * The latest due time after `afterMs` and at or before `nowMs`, or null when none has come. Looked for in
 * widening stretches before now (an hour, a day, a month, a year), so a frequent schedule after a long
 * outage costs a few steps, not one per missed slot.
 */
export function latestDue(pattern: string, afterMs: number, nowMs: number): number | null {
  const schedule = cron(pattern);
  for (const back of [3_600_000, 86_400_000, 32 * 86_400_000, 400 * 86_400_000]) {
    let cursor = new Date(Math.max(afterMs, nowMs - back));
    let latest: number | null = null;
    for (;;) {
      const next = schedule.nextRun(cursor);
      if (!next || next.getTime() > nowMs) break;
      latest = next.getTime();
      cursor = next;
    }
    if (latest !== null) return latest;
    if (nowMs - back <= afterMs) return null;
  }
  return null;
}

/** The schedule in words, e.g. "At 06:00 AM, Monday through Friday (UTC)". */
export function describeSchedule(pattern: string): string {
  try {
    return `${cronstrue.toString(pattern, { use24HourTimeFormat: true, verbose: false })} (UTC)`;
  } catch {
    return pattern;
  }
}
