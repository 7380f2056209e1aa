import 'server-only';
import { processSlot } from '../process-state';

/**
 * The upstream gate shared by every caller in one portal process: at most `maxConcurrency` requests in
 * flight, and after a 429 everybody waits out the same Retry-After instead of each caller finding the
 * throttle on its own. That keeps fifty browsing users from turning one throttle into a storm of 429s.
 */
/**
 * Who waits for a slot: a page someone is looking at goes before the pages of an export or coverage walk, and
 * both before the partner's own systems reading through API tokens (a busy loader never slows people).
 */
export type GatePriority = 'page' | 'bulk' | 'consumer';

/**
 * The longest a request waits for its turn at the gate, by lane (docs/architecture.md, "Waits and their
 * bounds"): a page within what is left of its own wait (PAGE_UPSTREAM_WAIT_MS, so none here), a walk of an
 * export or a delivery a minute, the partner's systems 10 s (they are told to come back, with Retry-After).
 */
export const GATE_SLOT_BOUND_MS: Record<GatePriority, number | null> = { page: null, bulk: 60_000, consumer: 10_000 };

export interface UpstreamGate {
  /** Waits for a slot. While the upstream's pause is longer than `maxPauseMs`, throws GatePaused at once. */
  acquire(signal?: AbortSignal, maxPauseMs?: number, priority?: GatePriority): Promise<() => void>;
  /** Hold every new request until `ms` from now (the upstream said it is throttling us). */
  coolDown(ms: number): void;
  readonly stats: { active: number; waiting: number; resumeAt: number };
}

/** The gate of this process (lib/process-state.ts): every upstream request of every layer goes through it. */
export const sharedGate = processSlot<UpstreamGate>('picksGate');

/**
 * Slots only pages may take: a third of the gate (two of the default six). Walks and the partner's systems share
 * the rest, so a page never waits for a slot behind background work, whose requests a busy event loop may be
 * slow to hand back. A gate of one or two keeps none.
 */
export const pageOnlySlots = (maxConcurrency: number) => (maxConcurrency >= 3 ? Math.floor(maxConcurrency / 3) : 0);

export function createUpstreamGate(maxConcurrency: number): UpstreamGate {
  let active = 0;
  let resumeAt = 0;
  const waiting: Record<GatePriority, Array<() => void>> = { page: [], bulk: [], consumer: [] };
  const backgroundMax = maxConcurrency - pageOnlySlots(maxConcurrency);
  const limitOf = (priority: GatePriority) => (priority === 'page' ? maxConcurrency : backgroundMax);

  /** A slot was freed: to a waiting page, else to a walk, else to a consumer, when their share allows. */
  const wake = () => {
    if (waiting.page.length > 0) return waiting.page.shift()!();
    if (active < backgroundMax) (waiting.bulk.shift() ?? waiting.consumer.shift())?.();
  };

  async function acquire(signal?: AbortSignal, maxPauseMs = Infinity, priority: GatePriority = 'page'): Promise<() => void> {
    const lane = waiting[priority];
    for (;;) {
      signal?.throwIfAborted();
      const pause = resumeAt - Date.now();
      if (pause > maxPauseMs) throw new GatePaused(pause);
      if (pause > 0) {
        await sleep(pause, signal);
        continue;
      }
      if (active < limitOf(priority)) {
        active += 1;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          active -= 1;
          wake();
        };
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = lane.indexOf(resume);
          if (index >= 0) lane.splice(index, 1);
          reject(signal?.reason);
        };
        const resume = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        lane.push(resume);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  return {
    acquire,
    coolDown(ms) {
      resumeAt = Math.max(resumeAt, Date.now() + ms);
    },
    get stats() {
      return { active, waiting: waiting.page.length + waiting.bulk.length + waiting.consumer.length, resumeAt };
    },
  };
}

/** The upstream asked us to pause for longer than a caller will wait: fail fast, saying how long. */
export class GatePaused extends Error {
  constructor(readonly remainingMs: number) {
    super(`upstream paused for ${remainingMs} ms`);
    this.name = 'GatePaused';
  }
}

/** By shape: the gate is shared process-wide, so it may come from another bundled copy of this module. */
export function isGatePaused(error: unknown): error is GatePaused {
  return error instanceof Error && error.name === 'GatePaused' && typeof (error as GatePaused).remainingMs === 'number';
}

/** A timer that an AbortSignal can cut short (rejecting with the signal's reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
