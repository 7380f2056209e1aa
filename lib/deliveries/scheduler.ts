import 'server-only';
import type { Kysely } from 'kysely';
import { claimRun, findDelivery, listDeliveries, reapCrashedRuns, recordOutcome, updateDelivery, type Delivery } from '../store/deliveries';
import type { Database } from '../store/schema';
import { recordAudit } from '../audit/record';
import { executeRun, newRunId, type DeliverySettings } from './run';
import { latestDue } from './schedule';

/**
 * Each instance checks every few seconds: runs whose instance died are marked failed and retried once;
 * each delivery's latest due time not yet handled is claimed (once across instances, by the store's unique
 * index) and run by the instance that claimed it. A stretch of missed due times (the portal was down) is
 * one run, the latest, when the portal is back.
 */

const TICK_MS = 5_000;
const LEASE_MS = 60_000;

export interface SchedulerContext {
  db: Kysely<Database>;
  instance: string;
  settings: DeliverySettings;
  now?: () => number;
}

export async function runNow(context: SchedulerContext, delivery: Delivery): Promise<{ id: string; done: Promise<void> }> {
  const now = (context.now ?? Date.now)();
  const id = newRunId();
  await claimRun(context.db, {
    id,
    deliveryId: delivery.id,
    dueMs: null,
    trigger: 'manual',
    attempt: 1,
    instance: context.instance,
    now,
    leaseMs: LEASE_MS,
  });
  return { id, done: executeRun(context.db, delivery, { id, trigger: 'manual' }, context.settings).catch(() => undefined) };
}

/** One check: crashed runs, then due times. Returns the runs it started (tests await them). */
export async function checkDue(context: SchedulerContext): Promise<Promise<void>[]> {
  const { db, instance } = context;
  const now = (context.now ?? Date.now)();
  const started: Promise<void>[] = [];
  for (const crashed of await reapCrashedRuns(db, now)) {
    const delivery = await findDelivery(db, crashed.deliveryId);
    if (!delivery) continue;
    await recordOutcome(db, delivery.id, false, crashed.error);
    await recordAudit({
      actor: `delivery:${delivery.name}`,
      action: 'delivery.run',
      outcome: 'failed',
      errorCode: 'INTERRUPTED',
      target: null,
    });
    if (crashed.attempt > 1) continue;
    const id = newRunId();
    const key = crashed.dueMs ?? Date.parse(crashed.startedAt);
    if (await claimRun(db, { id, deliveryId: delivery.id, dueMs: key, trigger: 'retry', attempt: 2, instance, now, leaseMs: LEASE_MS }))
      started.push(executeRun(context.db, delivery, { id, trigger: 'retry' }, context.settings));
  }
  for (const delivery of await listDeliveries(db)) {
    if (delivery.paused) continue;
    const due = latestDue(delivery.schedule, delivery.lastDueMs, now);
    if (due === null) continue;
    const id = newRunId();
    const claimed = await claimRun(db, {
      id,
      deliveryId: delivery.id,
      dueMs: due,
      trigger: 'schedule',
      attempt: 1,
      instance,
      now,
      leaseMs: LEASE_MS,
    });
    if (due > delivery.lastDueMs) await updateDelivery(db, delivery.id, { lastDueMs: due });
    if (claimed) started.push(executeRun(context.db, delivery, { id, trigger: 'schedule' }, context.settings));
  }
  return started;
}

export interface DeliveryLoop {
  stop(): void;
  context: SchedulerContext;
}

export function startDeliveryLoop(context: SchedulerContext, log: (line: string) => void = console.log): DeliveryLoop {
  let checking = false;
  let lastProblem = '';
  const tick = async () => {
    if (checking) return;
    checking = true;
    try {
      await checkDue(context);
      lastProblem = '';
    } catch (error) {
      const problem = (error as Error).message;
      if (problem !== lastProblem) log(`[deliveries] could not check for due deliveries: ${problem}`);
      lastProblem = problem;
    } finally {
      checking = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), TICK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), context };
}
