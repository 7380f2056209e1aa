import { processSlot } from '../process-state';
import { registerJob, type Job } from './registry';

/**
 * Leases held while a piece of work runs (an export's walk slot, a delivery run's claim) are renewed by one
 * job, 'lease-renewals', rather than a timer each: every TICK_MS it renews those whose time has come. It
 * stops last, just before the store closes, so work finishing during a stop keeps its leases.
 */

const TICK_MS = 5_000;

interface Renewal {
  everyMs: number;
  dueAt: number;
  renew: () => Promise<unknown>;
}

const renewals = () => processSlot<{ items: Set<Renewal>; job: Job | null }>('leaseRenewals').once(() => ({ items: new Set(), job: null }));

/** Renews with `renew` every `everyMs` (give or take TICK_MS) until the returned release is called; a failed renewal is tried next time. */
export function keepRenewed(everyMs: number, renew: () => Promise<unknown>): () => void {
  const state = renewals();
  const item: Renewal = { everyMs, dueAt: Date.now() + everyMs, renew };
  state.items.add(item);
  state.job ??= registerJob({
    name: 'lease-renewals',
    everyMs: TICK_MS,
    firstAfterMs: TICK_MS,
    lease: { own: 'renews the leases of work running here' },
    stopsAt: 'close',
    run: async () => {
      const now = Date.now();
      const due = [...state.items].filter((r) => r.dueAt <= now);
      for (const r of due) r.dueAt = now + r.everyMs;
      await Promise.all(due.map((r) => r.renew().catch(() => undefined))); // a lease not renewed runs out by itself
      return due.length > 0 ? 'ok' : 'skipped';
    },
    onStop: () => {
      state.job = null;
    },
  });
  return () => void state.items.delete(item);
}
