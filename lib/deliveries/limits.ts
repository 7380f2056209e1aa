import { mkdir, statfs } from 'node:fs/promises';
import { Cron } from 'croner';
import { AppError } from '../errors';

/**
 * The limits that keep deliveries from starving everything else: a cap on how many deliveries one person
 * owns (DELIVERY_MAX_PER_USER), a minimum interval between scheduled runs (DELIVERY_MIN_INTERVAL_MINUTES),
 * and free space where runs spool (DELIVERY_SPOOL_DIR, DELIVERY_SPOOL_MIN_FREE_MB) checked before a run
 * starts. One run in flight per delivery is the store's rule (a unique index); runs take walk slots like
 * exports (lib/walk-slots.ts), counted against the delivery's owner.
 */

export interface DeliveryLimits {
  maxPerUser: number;
  minIntervalMinutes: number;
  spoolDir: string;
  spoolMinFreeMb: number;
}

/** The shortest time between two of the next runs, in minutes (cron's gaps vary: "0,1 * * * *" runs a minute apart). */
export function shortestGapMinutes(pattern: string, from = new Date()): number {
  const runs = new Cron(pattern, { timezone: 'UTC', paused: true }).nextRuns(240, from);
  let shortest = Infinity;
  for (let i = 1; i < runs.length; i += 1) shortest = Math.min(shortest, runs[i]!.getTime() - runs[i - 1]!.getTime());
  return shortest / 60_000;
}

/** Why a schedule runs too often, or null. */
export function intervalProblem(pattern: string, minMinutes: number): string | null {
  const gap = shortestGapMinutes(pattern);
  if (gap >= minMinutes) return null;
  return `runs ${gap < 1 ? 'more than once a minute' : `every ${gap} minute${gap === 1 ? '' : 's'}`} at its most frequent; deliveries may run at most every ${minMinutes} minute${minMinutes === 1 ? '' : 's'} (DELIVERY_MIN_INTERVAL_MINUTES)`;
}

export function tooManyDeliveries(owned: number, max: number): string | null {
  return owned >= max
    ? `you already own ${owned} deliveries, the most one person may have (DELIVERY_MAX_PER_USER is ${max}); remove one first`
    : null;
}

/** Throws DELIVERY_NO_SPACE when the spool directory has less free space than a run needs. */
export async function checkSpoolSpace(limits: Pick<DeliveryLimits, 'spoolDir' | 'spoolMinFreeMb'>): Promise<void> {
  await mkdir(limits.spoolDir, { recursive: true, mode: 0o700 });
  const stats = await statfs(limits.spoolDir);
  const freeMb = Math.floor((Number(stats.bavail) * Number(stats.bsize)) / 1_048_576);
  if (freeMb < limits.spoolMinFreeMb)
    throw new AppError({
      code: 'DELIVERY_NO_SPACE',
      message: `The delivery did not start: the spool directory has ${freeMb} MB free and a run needs at least ${limits.spoolMinFreeMb} MB (DELIVERY_SPOOL_MIN_FREE_MB). Ask an operator to free space.`,
    });
}
