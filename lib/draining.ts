import { AppError } from './errors';
import { processSlot } from './process-state';

/**
 * Whether this instance is stopping, and the walks (exports, coverage reports, delivery runs) running in it:
 * what lib/start/shutdown.ts waits for and cuts, what health, metrics and new work read. Kept low (errors and the
 * process holder only) so that anything may ask.
 */

interface Draining {
  /** Set on SIGTERM: health answers 503, no new walk starts. */
  draining: boolean;
  /** Set when a stop's grace has run out: work waiting for the store gives up. */
  graceEnded: boolean;
  /** Walks running in this process. */
  walks: number;
  /** How to stop each walk that can be stopped when a stop's grace runs out. */
  cuts: Set<() => void>;
}

const slot = processSlot<Draining>('draining');
const state = () => slot.once(() => ({ draining: false, graceEnded: false, walks: 0, cuts: new Set() }));

export const isDraining = (): boolean => state().draining;
export const graceEnded = (): boolean => state().graceEnded;
/** Exports, coverage reports and delivery runs running in this process. */
export const runningWalks = (): number => state().walks;

/** Marks the instance draining; false when it already was. */
export function startDraining(): boolean {
  if (state().draining) return false;
  state().draining = true;
  return true;
}

/** Refuses new whole-set work while the instance drains: a 503 another instance will not give. */
export function refuseWhileDraining(): void {
  if (isDraining())
    throw new AppError({ code: 'UPSTREAM_UNAVAILABLE', message: 'This portal instance is stopping. Try again: another one will take it.' });
}

/** Counts a walk running in this process until `release` (lib/walk-slots.ts); `cut` stops it when a stop's grace runs out. */
export function trackWalk(cut?: () => void): () => void {
  const now = state();
  now.walks += 1;
  if (cut) now.cuts.add(cut);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (cut) now.cuts.delete(cut);
    now.walks -= 1;
  };
}

/** At the end of a stop's grace: what can be cut is, and given a moment to record itself (cancelled) before the store closes. */
export async function endGrace(): Promise<number> {
  const now = state();
  now.graceEnded = true;
  const cuts = [...now.cuts];
  for (const cut of cuts) cut();
  const until = Date.now() + 3_000;
  while (now.cuts.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return cuts.length;
}

/** Tests: the instance as at start. */
export function resetDraining(): void {
  slot.set(undefined);
}
