import 'server-only';
import type { Kysely } from 'kysely';
import {
  claimRun,
  dropUnstartedRun,
  findDelivery,
  listDeliveries,
  reapCrashedRuns,
  recordOutcome,
  runningRunOf,
  updateDelivery,
  type Claim,
  type Delivery,
} from '../store/deliveries';
import type { Database } from '../store/schema';
import { recordAudit } from '../audit/record';
import { AppError, toAppError } from '../errors';
import { claimWalkSlot } from '../walk-slots';
import { checkSpoolSpace } from './limits';
import { executeRun, newRunId, spoolOf, type DeliverySettings } from './run';
import { latestDue } from './schedule';
import { registerJob } from '../jobs/registry';
import { placedBy, recoverPlacedRun, runningHere } from './kept';
import { hasCorrections } from '../store/delivered';

/**
 * Each instance checks every few seconds: runs whose instance died are marked failed and retried once;
 * each delivery's latest due time not yet handled is claimed (once across instances, by the store's unique
 * index) and run by the instance that claimed it. A stretch of missed due times (the portal was down) is
 * one run, the latest, when the portal is back. A run needs a walk slot (counted against the delivery's
 * owner) and is the delivery's only one in flight: a due time that finds either taken waits for a later
 * check instead of being dropped.
 */

const TICK_MS = 5_000;
const LEASE_MS = 60_000;

export interface SchedulerContext {
  db: Kysely<Database>;
  instance: string;
  settings: DeliverySettings;
  now?: () => number;
}

const busy = (running: { id: string; startedAt: string } | undefined) =>
  new AppError({
    code: 'DELIVERY_BUSY',
    message: running
      ? `This delivery is already running: run ${running.id}, started ${running.startedAt}. Wait for it to end.`
      : 'This delivery is already running. Wait for it to end.',
  });

/**
 * Claims the run (the store lets one run of a delivery be in flight), then a walk slot for the delivery's
 * owner. 'claimed' comes with the slot's release (handed to the run); a refused slot drops the claimed run
 * again, unstarted, and throws TOO_MANY_WALKS.
 */
async function claimWithSlot(context: SchedulerContext, delivery: Delivery, claim: Omit<Claim, 'instance' | 'now' | 'leaseMs'>) {
  const now = (context.now ?? Date.now)();
  const outcome = await claimRun(context.db, { ...claim, instance: context.instance, now, leaseMs: LEASE_MS });
  if (outcome !== 'claimed') return { outcome, release: () => undefined };
  const limits = context.settings.limits ?? { MAX_EXPORTS_PER_USER: 1000, MAX_CONCURRENT_EXPORTS: 1000 };
  try {
    const release = await claimWalkSlot(delivery.createdBy, limits, { db: context.db, instance: context.instance });
    return { outcome, release };
  } catch (error) {
    await dropUnstartedRun(context.db, claim.id);
    throw error;
  }
}

/** Run now: 409 while a run is in flight, 429 without a walk slot, 507 without spool space. */
export async function runNow(context: SchedulerContext, delivery: Delivery): Promise<{ id: string; done: Promise<void> }> {
  await checkSpoolSpace(spoolOf(context.settings));
  const id = newRunId();
  const { outcome, release } = await claimWithSlot(context, delivery, {
    id,
    deliveryId: delivery.id,
    dueMs: null,
    trigger: 'manual',
    attempt: 1,
  });
  if (outcome !== 'claimed') throw busy(await runningRunOf(context.db, delivery.id));
  return { id, done: executeRun(context.db, delivery, { id, trigger: 'manual', release }, context.settings).catch(() => undefined) };
}

/** Claims a scheduled or retried run: null when it is not this instance's to run now (taken, busy, or no slot yet). */
async function tryClaim(context: SchedulerContext, delivery: Delivery, claim: Omit<Claim, 'instance' | 'now' | 'leaseMs'>) {
  try {
    return await claimWithSlot(context, delivery, claim);
  } catch (error) {
    if (toAppError(error).code === 'TOO_MANY_WALKS') return { outcome: 'busy' as const, release: () => undefined };
    throw error;
  }
}

/**
 * After a complete poll (by the instance that polled): each delivery that sends corrections and whose
 * destination holds records no longer true gets a correction run, claimed once across instances for this
 * poll (its due time; attempt 0 marks a correction). Returns the runs it started.
 */
export async function runCorrections(context: SchedulerContext, pollMs: number): Promise<Promise<void>[]> {
  const started: Promise<void>[] = [];
  for (const delivery of await listDeliveries(context.db)) {
    if (!delivery.corrections || delivery.paused || delivery.kind === 'changes') continue;
    if (!(await hasCorrections(context.db, delivery.id))) continue;
    const id = newRunId();
    const claim = { id, deliveryId: delivery.id, dueMs: pollMs, trigger: 'correction' as const, attempt: 0 };
    const { outcome, release } = await tryClaim(context, delivery, claim);
    if (outcome === 'claimed') started.push(executeRun(context.db, delivery, { id, trigger: 'correction', release }, context.settings));
  }
  return started;
}

/** One check: crashed runs, then due times. Returns the runs it started (tests await them). */
export async function checkDue(context: SchedulerContext): Promise<Promise<void>[]> {
  const { db } = context;
  const now = (context.now ?? Date.now)();
  const started: Promise<void>[] = [];
  for (const crashed of await reapCrashedRuns(db, now, runningHere())) {
    const delivery = await findDelivery(db, crashed.deliveryId);
    if (!delivery) continue;
    // Crashed after placing its file but before recording it: recorded complete from its manifest, never delivered twice.
    const placed = await placedBy(crashed, delivery, context.settings.root);
    if (placed) {
      await recoverPlacedRun(db, delivery, crashed, placed);
      continue;
    }
    await recordOutcome(db, delivery.id, false, crashed.error);
    await recordAudit({
      actor: `delivery:${delivery.name}`,
      action: 'delivery.run',
      outcome: 'failed',
      errorCode: 'INTERRUPTED',
      target: null,
    });
    // A correction is not retried as such: the next poll sends whatever is still not true at the destination.
    if (crashed.attempt > 1 || crashed.trigger === 'correction') continue;
    const id = newRunId();
    const key = crashed.dueMs ?? Date.parse(crashed.startedAt);
    const { outcome, release } = await tryClaim(context, delivery, {
      id,
      deliveryId: delivery.id,
      dueMs: key,
      trigger: 'retry',
      attempt: 2,
    });
    if (outcome === 'claimed') started.push(executeRun(context.db, delivery, { id, trigger: 'retry', release }, context.settings));
  }
  for (const delivery of await listDeliveries(db)) {
    if (delivery.paused) continue;
    const due = latestDue(delivery.schedule, delivery.lastDueMs, now);
    if (due === null) continue;
    const id = newRunId();
    const { outcome, release } = await tryClaim(context, delivery, {
      id,
      deliveryId: delivery.id,
      dueMs: due,
      trigger: 'schedule',
      attempt: 1,
    });
    if (outcome === 'busy') continue; // a run in flight, or no slot: this due time is claimed by a later check
    if (due > delivery.lastDueMs) await updateDelivery(db, delivery.id, { lastDueMs: due });
    if (outcome === 'claimed') started.push(executeRun(context.db, delivery, { id, trigger: 'schedule', release }, context.settings));
  }
  return started;
}

export interface DeliveryLoop {
  stop(): Promise<void>;
  context: SchedulerContext;
}

/** Checks every TICK_MS, from the start, for deliveries due (job registry); each run's claim in the store makes it happen once. */
export function startDeliveryLoop(context: SchedulerContext): DeliveryLoop {
  const job = registerJob({
    name: 'deliveries',
    everyMs: TICK_MS,
    lease: { own: 'every instance checks; a claim in the store makes each run happen once' },
    run: async () => {
      await checkDue(context);
    },
  });
  return { stop: job.stop, context };
}
